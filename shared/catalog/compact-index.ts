import { gunzipSync, gzipSync } from 'node:zlib';
import type { AdventureSummary } from './summary';

/**
 * The listing index in a compact binary form, written once per import in
 * three parts, and loaded once per container and version:
 *
 * - the head, read on a cold load: "CIX2" | header length (u32 LE) | header
 *   (JSON: counts, city and category dictionaries) | core (gzip). The core
 *   holds what every query reads, as typed arrays over one buffer:
 *   coordinates, from_price, active, city and category ids, each rate pack's
 *   weekdays (a bit mask) and booking window, the price and -price orders and
 *   each slug's rank (sorted here, at build time, with the comparators a full
 *   sort uses), the distance grid's cells, and the offsets of each
 *   adventure's search text. Adventures are numbered in popularity order, so
 *   that order is the identity.
 * - the search text (gzip): the lowercased text `q` is matched in (title,
 *   summary, city, agency, category) as UTF-8, read on the first query with `q`.
 * - record blocks (gzip each): the full summaries of adventures 256k to
 *   256(k + 1) - 1, each its own JSON text with its offset, read when a page
 *   first shows one of them.
 *
 * What was read is kept for the life of the container (the index never changes):
 * record blocks decompressed, as bytes; a page parses only its own summaries.
 */
const MAGIC = 'CIX2';
const RECORD_BLOCK = 256;

interface Header {
  count: number;
  packs: number;
  cells: number;
  cities: string[];
  categories: string[];
  /** Adventures whose search text is not well-formed UTF-16 (lone surrogates), with that text: matched as strings. */
  illFormed: [number, string][];
}

/** The core's columns, in their order in its buffer; 8-byte columns first, so every column is aligned. */
const COLUMNS = [
  ['lat', Float64Array, 'count'],
  ['lng', Float64Array, 'count'],
  ['price', Float64Array, 'count'],
  ['packWindow', Float64Array, 'packs'],
  ['cellLat', Float64Array, 'cells'],
  ['cellLng', Float64Array, 'cells'],
  ['cellStart', Uint32Array, 'cells+1'],
  ['cellItems', Uint32Array, 'count'],
  ['slugRank', Uint32Array, 'count'],
  ['byPrice', Uint32Array, 'count'],
  ['byPriceDesc', Uint32Array, 'count'],
  ['hayOffset', Uint32Array, 'count+1'],
  ['packOffset', Uint32Array, 'count+1'],
  ['city', Uint32Array, 'count'],
  ['category', Uint32Array, 'count'],
  ['active', Uint8Array, 'count'],
  ['packDays', Uint8Array, 'packs'],
] as const;

export type Core = { [K in (typeof COLUMNS)[number] as K[0]]: InstanceType<K[1]> };

type Counts = Pick<Header, 'count' | 'packs' | 'cells'>;
const lengthOf = (size: (typeof COLUMNS)[number][2], h: Counts) =>
  ({ count: h.count, 'count+1': h.count + 1, packs: h.packs, cells: h.cells, 'cells+1': h.cells + 1 })[size];
const align8 = (n: number) => Math.ceil(n / 8) * 8;

function layout(h: Counts) {
  let at = 0;
  const cols = COLUMNS.map(([name, Type, size]) => {
    const col = { name, Type, offset: at, length: lengthOf(size, h) };
    at = align8(at + col.length * Type.BYTES_PER_ELEMENT);
    return col;
  });
  return { cols, bytes: at };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The popularity order of the listing (and of the index items before this format). */
const byPopularity = (a: AdventureSummary, b: AdventureSummary) => b.popularity - a.popularity || a.slug.localeCompare(b.slug);
const byPrice = (a: AdventureSummary, b: AdventureSummary) => a.from_price - b.from_price || byPopularity(a, b);
const byPriceDesc = (a: AdventureSummary, b: AdventureSummary) => b.from_price - a.from_price || byPopularity(a, b);

/** The text `q` is searched in, as the listing has always built it. */
/** Grid cells of half a degree (about 55 km) for the distance sort: a few hundred cells hold a national catalog. */
export const CELL_DEGREES = 0.5;
const cellOf = (lat: number, lng: number) => [Math.floor(lat / CELL_DEGREES) * CELL_DEGREES, Math.floor(lng / CELL_DEGREES) * CELL_DEGREES] as const;

export interface EncodedIndex {
  head: Buffer;
  text: Buffer;
  blocks: Buffer[];
}

export const blockOf = (i: number) => Math.floor(i / RECORD_BLOCK);

export const searchText = (s: AdventureSummary) => `${s.title} ${s.summary} ${s.city} ${s.agency} ${s.category}`.toLowerCase();

export function encodeIndex(unsorted: AdventureSummary[]): EncodedIndex {
  const all = [...unsorted].sort(byPopularity);
  const count = all.length;
  const packs = all.reduce((n, s) => n + s.sells.length, 0);
  const cities = [...new Set(all.map((s) => s.city))];
  const categories = [...new Set(all.map((s) => s.category))];
  const cityId = new Map(cities.map((c, i) => [c, i]));
  const categoryId = new Map(categories.map((c, i) => [c, i]));
  const grid = new Map<string, { lat: number; lng: number; items: number[] }>();
  for (const [i, s] of all.entries()) {
    const [lat, lng] = cellOf(s.lat, s.lng);
    const key = `${lat} ${lng}`;
    const cell = grid.get(key) ?? { lat, lng, items: [] };
    grid.set(key, cell);
    cell.items.push(i);
  }
  const header: Header = { count, packs, cells: grid.size, cities, categories, illFormed: [] };
  const { cols, bytes } = layout(header);
  const coreBuf = new ArrayBuffer(bytes);
  const core = Object.fromEntries(cols.map((c) => [c.name, new c.Type(coreBuf, c.offset, c.length)])) as unknown as Core;
  const text: Buffer[] = [];
  let textAt = 0;
  let pack = 0;
  for (const [i, s] of all.entries()) {
    core.lat[i] = s.lat;
    core.lng[i] = s.lng;
    core.price[i] = s.from_price;
    core.city[i] = cityId.get(s.city)!;
    core.category[i] = categoryId.get(s.category)!;
    core.active[i] = s.active ? 1 : 0;
    core.packOffset[i] = pack;
    for (const p of s.sells) {
      // Weekdays are ISO 1..7: a query's weekday is one of them, so no other value can match.
      core.packDays[pack] = p.weekdays.reduce((m, d) => (Number.isInteger(d) && d >= 1 && d <= 7 ? m | (1 << d) : m), 0);
      core.packWindow[pack++] = p.window_days;
    }
    const t = searchText(s);
    if (LONE_SURROGATE.test(t)) header.illFormed.push([i, t]);
    const b = Buffer.from(t, 'utf8');
    core.hayOffset[i] = textAt;
    text.push(b);
    textAt += b.length;
  }
  core.packOffset[count] = pack;
  core.hayOffset[count] = textAt;
  const numbered = all.map((s, i) => ({ s, i }));
  core.byPrice.set([...numbered].sort((a, b) => byPrice(a.s, b.s)).map((x) => x.i));
  core.byPriceDesc.set([...numbered].sort((a, b) => byPriceDesc(a.s, b.s)).map((x) => x.i));
  // Equal slugs (never two in a catalog) would share a rank, as localeCompare would call them equal.
  let rank = 0;
  [...numbered]
    .sort((a, b) => a.s.slug.localeCompare(b.s.slug))
    .forEach((x, k, sorted) => {
      if (k > 0 && sorted[k - 1]!.s.slug.localeCompare(x.s.slug) !== 0) rank++;
      core.slugRank[x.i] = rank;
    });
  let at = 0;
  for (const [c, cell] of [...grid.values()].entries()) {
    core.cellLat[c] = cell.lat;
    core.cellLng[c] = cell.lng;
    core.cellStart[c] = at;
    core.cellItems.set(cell.items, at);
    at += cell.items.length;
  }
  core.cellStart[grid.size] = at;

  const head = Buffer.from(JSON.stringify(header), 'utf8');
  const size = Buffer.alloc(4);
  size.writeUInt32LE(head.length);
  const blocks: Buffer[] = [];
  for (let k = 0; k * RECORD_BLOCK < count; k++) {
    // count (u32) | offsets of each summary's JSON (u32, count + 1) | the JSON texts: a page parses only its own summaries.
    const records = all.slice(k * RECORD_BLOCK, (k + 1) * RECORD_BLOCK).map((r) => Buffer.from(JSON.stringify(r), 'utf8'));
    const offsets = Buffer.alloc(4 * (records.length + 2));
    offsets.writeUInt32LE(records.length, 0);
    records.reduce((at, r, n) => {
      offsets.writeUInt32LE(at + r.length, 4 * (n + 2));
      return at + r.length;
    }, 0);
    blocks.push(gzipSync(Buffer.concat([offsets, ...records])));
  }
  return { head: Buffer.concat([Buffer.from(MAGIC), size, head, gzipSync(new Uint8Array(coreBuf))]), text: gzipSync(Buffer.concat(text)), blocks };
}

/** Where a loaded index reads its other parts: the search text, and record blocks by number (in the order asked). */
export interface IndexParts {
  text(): Promise<Uint8Array>;
  blocks(ks: number[]): Promise<Uint8Array[]>;
}

/** The parts of an index in memory (the tests; an index written before this format). */
export const partsOf = (e: EncodedIndex): IndexParts => ({ text: async () => e.text, blocks: async (ks) => ks.map((k) => e.blocks[k]!) });

/** A loaded index: the head decoded; search text and summaries read on first use and kept. */
export interface CompactIndex {
  count: number;
  core: Core;
  cities: string[];
  categories: string[];
  /** Reads what a query needs that is not in memory yet: the search text, the blocks of these adventures. */
  load(need: { text?: boolean; items?: Iterable<number> }): Promise<void>;
  /** Takes parts already read: the search text, record blocks by number. */
  adopt(got: { text?: Uint8Array; blocks?: [number, Uint8Array][] }): void;
  /** Adventure i's full summary (i in popularity order); its block must be loaded. */
  summary(i: number): AdventureSummary;
  /** For each adventure, 1 if its search text contains q (lowercased, non-empty); the text must be loaded. */
  matching(q: string): Uint8Array;
}

export function decodeIndex(headBytes: Uint8Array, parts: IndexParts): CompactIndex {
  const buf = Buffer.from(headBytes.buffer, headBytes.byteOffset, headBytes.byteLength);
  if (buf.toString('latin1', 0, 4) !== MAGIC) throw new Error('not a compact catalog index');
  const headLength = buf.readUInt32LE(4);
  const header = JSON.parse(buf.toString('utf8', 8, 8 + headLength)) as Header;
  const raw = gunzipSync(buf.subarray(8 + headLength));
  // On its own ArrayBuffer: every column's offset is then aligned to its element size.
  const coreBuf =
    raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength ? raw.buffer : raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
  const core = Object.fromEntries(layout(header).cols.map((c) => [c.name, new c.Type(coreBuf, c.offset, c.length)])) as unknown as Core;

  // Blocks decompressed, as bytes: a summary is parsed when a page shows it, so the heap holds no summaries between requests.
  const blocks = new Map<number, Buffer>();
  let text: Buffer | undefined;
  const illFormed = new Map(header.illFormed);
  const index: CompactIndex = {
    count: header.count,
    core,
    cities: header.cities,
    categories: header.categories,
    async load(need) {
      const missing = [...new Set([...(need.items ?? [])].map(blockOf))].filter((k) => !blocks.has(k));
      const [t, got] = await Promise.all([need.text && !text ? parts.text() : undefined, missing.length ? parts.blocks(missing) : []]);
      index.adopt({ ...(t ? { text: t } : {}), blocks: missing.map((k, n) => [k, got[n]!]) });
    },
    adopt(got) {
      if (got.text && !text) text = gunzipSync(got.text);
      for (const [k, b] of got.blocks ?? []) if (!blocks.has(k)) blocks.set(k, gunzipSync(b));
    },
    summary(i) {
      const block = blocks.get(blockOf(i));
      if (!block) throw new Error(`catalog index block ${blockOf(i)} is not loaded`);
      const j = i % RECORD_BLOCK;
      const base = 4 * (block.readUInt32LE(0) + 2);
      return JSON.parse(block.toString('utf8', base + block.readUInt32LE(4 * (j + 1)), base + block.readUInt32LE(4 * (j + 2)))) as AdventureSummary;
    },
    matching(q) {
      if (!text) throw new Error('catalog index search text is not loaded');
      const hay = text;
      const out = new Uint8Array(header.count);
      const offsets = core.hayOffset;
      if (LONE_SURROGATE.test(q)) {
        // A q that is not well-formed has no UTF-8 form of its own: every text is matched as a string.
        for (let i = 0; i < header.count; i++) out[i] = (illFormed.get(i) ?? hay.toString('utf8', offsets[i], offsets[i + 1])).includes(q) ? 1 : 0;
        return out;
      }
      const needle = Buffer.from(q, 'utf8');
      // Byte matching of UTF-8 is string matching for well-formed text; the few ill-formed texts are matched as strings.
      for (let at = hay.indexOf(needle); at >= 0; ) {
        let lo = 0;
        let hi = header.count - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (offsets[mid]! <= at) lo = mid;
          else hi = mid - 1;
        }
        if (at + needle.length <= offsets[lo + 1]!) {
          out[lo] = 1;
          at = hay.indexOf(needle, offsets[lo + 1]!);
        } else at = hay.indexOf(needle, at + 1);
      }
      for (const [i, t] of illFormed) out[i] = t.includes(q) ? 1 : 0;
      return out;
    },
  };
  return index;
}
