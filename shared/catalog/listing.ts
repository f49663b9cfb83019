import { daysBetween, isoWeekday } from '../kernel/time';
import { CELL_DEGREES, type CompactIndex, decodeIndex, encodeIndex, type IndexParts, partsOf } from './compact-index';
import type { AdventureSummary } from './store';

/**
 * In-memory listing over the compact catalog index (compact-index.ts): it is
 * loaded once per container and version, then every query is a filter over a
 * pre-sorted order plus a slice. Adventures are numbered in popularity order;
 * the filters read typed columns, and only the page's summaries are decoded.
 *   popularity: the numbering itself, no sort per request
 *   price / -price: orders sorted when the index is written
 *   distance: a grid of cells built once per load; a query visits the cells
 *     nearest first and stops once the page is certain, so it sorts only what
 *     the page needs, not every match; each item's point on the unit sphere is
 *     computed once per load, so an item that cannot reach the page is ruled
 *     out by a few multiplications instead of a haversine
 */
export interface PreparedCatalog {
  index: CompactIndex;
  /** Adventures (by number) by grid cell of CELL_DEGREES, each cell with its bounds. */
  cells: Cell[];
}

interface Cell {
  latMin: number;
  lngMin: number;
  /** Adventure numbers. */
  items: Uint32Array;
  /** items[i]'s point on the unit sphere at xyz[3i], xyz[3i + 1], xyz[3i + 2]. */
  xyz: Float64Array;
}

/** The grid the index holds, with each item's point on the unit sphere (computed once per load). */
function gridOf({ core }: CompactIndex): Cell[] {
  const xyz = new Float64Array(core.cellItems.length * 3);
  for (const [k, i] of core.cellItems.entries()) xyz.set(unitVector(core.lat[i]!, core.lng[i]!), k * 3);
  return Array.from(core.cellLat, (latMin, c) => {
    const [from, to] = [core.cellStart[c]!, core.cellStart[c + 1]!];
    return { latMin, lngMin: core.cellLng[c]!, items: core.cellItems.subarray(from, to), xyz: xyz.subarray(3 * from, 3 * to) };
  });
}

const toRad = (d: number) => (d * Math.PI) / 180;

function unitVector(lat: number, lng: number): [number, number, number] {
  const cosLat = Math.cos(toRad(lat));
  return [cosLat * Math.cos(toRad(lng)), cosLat * Math.sin(toRad(lng)), Math.sin(toRad(lat))];
}

/**
 * The squared chord, on the unit sphere, of a great-circle distance: it grows
 * with the distance, so comparing chords compares distances (chord = 2 sin(d / 2R)).
 */
function chordSquared(km: number): number {
  const half = Math.sin(Math.min(km / (2 * R), Math.PI / 2));
  return 4 * half * half;
}

/**
 * The chord test's limit for a page whose last place is `km` away, with slack
 * far above the rounding of either formula (about 1e-12 relative, 1e-31
 * absolute): an item this close to the last place is measured with the
 * haversine like any other, so the chord never decides a tie.
 */
const chordLimitFor = (km: number) => chordSquared(km) * (1 + 1e-6) + 1e-20;

/** A lower bound of the distance from a point to any point of a cell: to the cell's nearest corner or edge point, less 0.5 %. */
function cellLowerBoundKm(lat: number, lng: number, c: Cell): number {
  const nearLat = Math.min(Math.max(lat, c.latMin), c.latMin + CELL_DEGREES);
  const nearLng = Math.min(Math.max(lng, c.lngMin), c.lngMin + CELL_DEGREES);
  return haversineKm(lat, lng, nearLat, nearLng) * 0.995;
}

/** A loaded index head (what an import wrote) made ready to search; its other parts are read from `parts` when needed. */
export function fromIndex(head: Uint8Array, parts: IndexParts): PreparedCatalog {
  const index = decodeIndex(head, parts);
  return { index, cells: gridOf(index) };
}

/** The summaries made ready to search through the stored format, every part in memory and loaded (the tests). */
export function prepare(summaries: AdventureSummary[]): PreparedCatalog {
  const encoded = encodeIndex(summaries);
  const cat = fromIndex(encoded.head, partsOf(encoded));
  cat.index.adopt({ text: encoded.text, blocks: encoded.blocks.map((b, k) => [k, b]) });
  return cat;
}

/** `search`, after reading what the query needs that the container does not hold yet (the search text, the page's summaries). */
export async function find(cat: PreparedCatalog, query: ListingQuery, today: string): Promise<{ items: ListedAdventure[]; total: number }> {
  if (query.q?.trim()) await cat.index.load({ text: true });
  const { hits, total } = searchHits(cat, query, today);
  await cat.index.load({ items: hits.map((h) => h.i) });
  return { items: hits.map((h) => listed(cat, h)), total };
}

interface Hit {
  i: number;
  distance_km?: number;
}

const listed = (cat: PreparedCatalog, { i, distance_km }: Hit): ListedAdventure =>
  distance_km === undefined ? { adventure: cat.index.summary(i) } : { adventure: cat.index.summary(i), distance_km };

/** The page and the total, from what is in memory (every part the query needs loaded). */
export function search(cat: PreparedCatalog, query: ListingQuery, today: string): { items: ListedAdventure[]; total: number } {
  const { hits, total } = searchHits(cat, query, today);
  return { items: hits.map((h) => listed(cat, h)), total };
}

export type SortKey = 'popularity' | 'price' | '-price' | 'distance';

export interface ListingQuery {
  sort: SortKey;
  q?: string;
  city?: string;
  category?: string;
  /** Adventures operating on this local date (and inside their booking window). */
  date?: string;
  min_price?: number;
  max_price?: number;
  lat?: number;
  lng?: number;
  offset: number;
  limit: number;
}

export interface ListedAdventure {
  adventure: AdventureSummary;
  distance_km?: number;
}

const R = 6371.0088;
export function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = toRad(lat2 - lat1);
  const dLng = toRad(lng2 - lng1);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(toRad(lat1)) * Math.cos(toRad(lat2)) * Math.sin(dLng / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
}

function searchHits(cat: PreparedCatalog, query: ListingQuery, today: string): { hits: Hit[]; total: number } {
  const { index } = cat;
  const { core } = index;
  const q = query.q?.trim().toLowerCase();
  const city = query.city?.toLowerCase();
  const weekday = query.date ? isoWeekday(query.date) : undefined;
  const ahead = query.date ? daysBetween(today, query.date) : undefined;
  const matches = q ? index.matching(q) : undefined;
  const cities = city === undefined ? undefined : Uint8Array.from(index.cities, (c) => (c.toLowerCase() === city ? 1 : 0));
  const category = query.category === undefined ? undefined : index.categories.indexOf(query.category);
  const bit = weekday === undefined ? 0 : 1 << weekday;
  const sells = (i: number) => {
    for (let p = core.packOffset[i]!; p < core.packOffset[i + 1]!; p++) if (core.packDays[p]! & bit && ahead! <= core.packWindow[p]!) return true;
    return false;
  };
  const keep = (i: number) =>
    (!matches || matches[i] === 1) &&
    (!cities || cities[core.city[i]!] === 1) &&
    (category === undefined || core.category[i] === category) &&
    (query.min_price === undefined || core.price[i]! >= query.min_price) &&
    (query.max_price === undefined || core.price[i]! <= query.max_price) &&
    (weekday === undefined || (core.active[i] === 1 && ahead! >= 0 && sells(i)));

  if (query.sort === 'distance') return nearest(cat, query, keep);
  const order = query.sort === 'price' ? core.byPrice : query.sort === '-price' ? core.byPriceDesc : undefined;
  const hits: Hit[] = [];
  let total = 0;
  for (let n = 0; n < index.count; n++) {
    const i = order ? order[n]! : n;
    if (!keep(i)) continue;
    if (total >= query.offset && hits.length < query.limit) {
      hits.push(query.lat !== undefined && query.lng !== undefined ? { i, distance_km: haversineKm(query.lat, query.lng, core.lat[i]!, core.lng[i]!) } : { i });
    }
    total++;
  }
  return { hits, total };
}

/** The `size` smallest numbers seen so far, in a binary max-heap: `top` is the largest of them. */
class SmallestK {
  private readonly heap: number[] = [];
  constructor(private readonly size: number) {}

  get full() {
    return this.heap.length === this.size;
  }

  get top() {
    return this.heap[0]!;
  }

  add(v: number) {
    const h = this.heap;
    if (h.length === this.size) {
      if (v >= h[0]!) return;
      h[0] = v;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]! > h[m]!) m = l;
        if (r < h.length && h[r]! > h[m]!) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
      return;
    }
    h.push(v);
    for (let i = h.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (h[p]! >= h[i]!) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }
}

/**
 * The page of matches nearest to (lat, lng): cells are visited by their lower
 * bound of distance, and the visit stops collecting once the next cell cannot
 * hold anything nearer than the last item the page needs (the largest of the
 * `offset + limit` smallest distances so far). Inside a cell, an item whose
 * chord from the point is longer than the last place's (chordLimitFor) is
 * skipped without its haversine; the page's distances are all haversines, as
 * the other sorts report them. The total still counts every match (a filter
 * pass, as the other sorts do).
 */
function nearest(cat: PreparedCatalog, query: ListingQuery, keep: (i: number) => boolean): { hits: Hit[]; total: number } {
  const lat = query.lat!;
  const lng = query.lng!;
  const { core } = cat.index;
  const needed = query.offset + query.limit;
  const cells = cat.cells.map((c) => ({ c, bound: cellLowerBoundKm(lat, lng, c) })).sort((a, b) => a.bound - b.bound);
  const [px, py, pz] = unitVector(lat, lng);
  const found: Required<Hit>[] = [];
  const kth = new SmallestK(needed);
  // The squared chord beyond which an item cannot reach the page (with slack); Infinity until the page is full.
  let chordLimit = Number.POSITIVE_INFINITY;
  let total = 0;
  for (const { c, bound } of cells) {
    const certain = kth.full && bound > kth.top;
    const xyz = c.xyz;
    for (let k = 0; k < c.items.length; k++) {
      const i = c.items[k]!;
      if (!keep(i)) continue;
      total++;
      if (certain) continue;
      const dx = xyz[3 * k]! - px;
      const dy = xyz[3 * k + 1]! - py;
      const dz = xyz[3 * k + 2]! - pz;
      if (dx * dx + dy * dy + dz * dz > chordLimit) continue;
      const distance_km = haversineKm(lat, lng, core.lat[i]!, core.lng[i]!);
      // Farther than the page's last place so far: it can never be on the page (a tie is kept for the slug order).
      if (kth.full && distance_km > kth.top) continue;
      found.push({ i, distance_km });
      kth.add(distance_km);
      if (kth.full) chordLimit = chordLimitFor(kth.top);
    }
  }
  // Ties in distance are ordered by slug: by its rank in the slugs' localeCompare order, computed when the index was written.
  found.sort((a, b) => a.distance_km - b.distance_km || core.slugRank[a.i]! - core.slugRank[b.i]!);
  return { hits: found.slice(query.offset, needed), total };
}
