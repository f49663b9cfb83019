import '../scripts/quiet-sdk';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { AdventureInput } from '../shared/catalog/import-format';
import type { ListingQuery } from '../shared/catalog/listing';
import { addDays, localDate } from '../shared/kernel/time';
import { percentile } from './lib';

/** A catalog of `n` adventures derived from the seed: new ids, slugs, places, prices and popularity. */
export function syntheticCatalog(n: number, seed = 42): { adventures: AdventureInput[] } {
  const base = (JSON.parse(readFileSync(join(import.meta.dirname, '..', 'data', 'catalog', 'production.json'), 'utf8')) as { adventures: AdventureInput[] })
    .adventures;
  let x = seed;
  const rnd = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
  const adventures: AdventureInput[] = [];
  for (let i = 0; i < n; i++) {
    const t = base[i % base.length]!;
    const factor = 0.5 + rnd() * 1.5;
    adventures.push({
      ...t,
      id: randomUUID(),
      slug: `${t.slug}-${i}`,
      title: `${t.title} #${i}`,
      location: { lat: t.location.lat + (rnd() - 0.5), lng: t.location.lng + (rnd() - 0.5) },
      popularity: Math.floor(rnd() * 100_000),
      rating: Math.round((3.5 + rnd() * 1.5) * 10) / 10,
      active: true,
      rate_packs: t.rate_packs.map((rp) => ({
        ...rp,
        id: randomUUID(),
        age_brackets: rp.age_brackets.map((b) => ({ ...b, price: (Math.round(Number(b.price) * factor * 100) / 100).toFixed(2) })),
      })),
    });
  }
  return { adventures };
}

/** The listing queries timed in process after a cold load, each varied per request (a point, a price range, an offset). */
const CITIES = [
  ['Marrakech', 31.63, -7.99],
  ['Fes', 34.03, -5.0],
  ['Agadir', 30.42, -9.6],
  ['Tangier', 35.77, -5.8],
  ['Merzouga', 31.1, -4.01],
  ['Essaouira', 31.51, -9.77],
] as const;

interface Scenario {
  name: string;
  query: (i: number, size: number, today: string) => ListingQuery;
}

const SCENARIOS: Scenario[] = [
  { name: 'popularity', query: (i) => ({ sort: 'popularity', offset: (i % 4) * 25, limit: 25 }) },
  { name: 'price', query: (i) => ({ sort: 'price', offset: (i % 4) * 25, limit: 25 }) },
  { name: '-price', query: (i) => ({ sort: '-price', offset: (i % 4) * 25, limit: 25 }) },
  {
    name: 'distance',
    query: (i) => {
      const [, lat, lng] = CITIES[i % CITIES.length]!;
      return { sort: 'distance', lat: lat + (i % 7) * 0.01, lng, offset: 0, limit: 25 };
    },
  },
  {
    name: 'q+date, price',
    query: (i, _n, today) => ({ sort: 'price', q: i % 2 ? 'camel' : 'medina', date: addDays(today, 1 + (i % 30)), offset: 0, limit: 25 }),
  },
  {
    name: 'city+price range',
    query: (i) => ({ sort: 'popularity', city: CITIES[i % CITIES.length]![0], min_price: 20_000, max_price: 90_000, offset: 0, limit: 25 }),
  },
  { name: 'deep page', query: (i, size) => ({ sort: 'popularity', offset: Math.max(0, size - 1_000 - (i % 10) * 100), limit: 100 }) },
];

export interface IndexLoadRow {
  adventures: number;
  /** Stored size of the index's parts: what a cold load reads (the head), the search text, the record blocks. */
  storedMB: { head: number; text: number; blocks: number };
  /** The cold load: the index head read from the data table (readMs), then decoded with the grid built (decodeMs). */
  loadMs: number;
  readMs: number;
  decodeMs: number;
  /** The first listing after it (popularity, page 1: its record block is read), and the first with `q` (the search text is read). */
  firstPageMs: number;
  firstQMs: number;
  /** Retained after the load and those two first queries (after a GC), against before the load: heap, external (buffers) and RSS. */
  heapMB: number;
  externalMB: number;
  rssMB: number;
  /** Peak RSS delta seen right after the load, before any GC. */
  peakRssMB: number;
  latency: { name: string; p50: number; p99: number }[];
  /** Each cold load's time, in the order run (the figures above are their medians). */
  loads?: number[];
}

/** Cold loads per size (BENCH_CATALOG_LOADS): the first one after the stack booted also pays DynamoDB Local's own warm-up. */
const LOADS = Number(process.env.BENCH_CATALOG_LOADS ?? 3);

const MB = 1024 * 1024;

/**
 * One cold load in this (fresh) process: the index of `scope` read from the
 * data table and made ready, as a new container's first listing does it;
 * then `samples` queries per scenario, interleaved, each as the API runs it
 * (what a query needs and the container does not hold yet is read first).
 */
export async function coldLoad(scope: string, size: number, samples: number): Promise<IndexLoadRow> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const { catalogStore } = await import('../shared/catalog/store');
  const { find, fromIndex } = await import('../shared/catalog/listing');
  const meta = (await catalogStore.meta(scope))!;
  // Warm the client (local HTTP, credentials, endpoint): a container's first catalog request has done this for authentication.
  await catalogStore.meta(scope);
  gc();
  const before = process.memoryUsage();
  // What loadPrepared (shared/catalog/service.ts) does, in its two steps.
  let t = performance.now();
  const { head, parts } = await catalogStore.loadIndex(scope, meta);
  const readMs = performance.now() - t;
  const cat = fromIndex(head, parts);
  const loadMs = performance.now() - t;
  const peak = process.memoryUsage();
  const today = localDate(new Date());
  t = performance.now();
  await find(cat, { sort: 'popularity', offset: 0, limit: 25 }, today);
  const firstPageMs = performance.now() - t;
  t = performance.now();
  await find(cat, { sort: 'popularity', q: 'camel', offset: 0, limit: 25 }, today);
  const firstQMs = performance.now() - t;
  gc();
  const after = process.memoryUsage();
  const times = SCENARIOS.map(() => [] as number[]);
  for (let i = -20; i < samples; i++) {
    for (const [k, s] of SCENARIOS.entries()) {
      const q = s.query(Math.abs(i), size, today);
      const t0 = performance.now();
      await find(cat, q, today);
      if (i >= 0) times[k]!.push(performance.now() - t0);
    }
  }
  const stored = await catalogStore.indexBytes(scope, meta);
  return {
    adventures: size,
    storedMB: { head: stored.head / MB, text: stored.text / MB, blocks: stored.blocks / MB },
    loadMs,
    readMs,
    decodeMs: loadMs - readMs,
    firstPageMs,
    firstQMs,
    heapMB: (after.heapUsed - before.heapUsed) / MB,
    externalMB: (after.external - before.external) / MB,
    rssMB: (after.rss - before.rss) / MB,
    peakRssMB: (peak.rss - before.rss) / MB,
    latency: SCENARIOS.map((s, k) => {
      const sorted = times[k]!.sort((a, b) => a - b);
      return { name: s.name, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
    }),
  };
}

/**
 * npm run bench -- --only catalog: for each size, a generated catalog's
 * listing index is published in the running local stack's data table (as an
 * import publishes it), then loaded cold in a fresh Node process (a new
 * container) that measures time and memory, then the latency of each sort
 * and filter in process. Needs the stack's environment in process.env.
 */
export async function benchCatalogIndex(sizes: number[], samples = 200): Promise<IndexLoadRow[]> {
  const { catalogStore } = await import('../shared/catalog/store');
  const { summarize } = await import('../shared/catalog/store');
  const rows: IndexLoadRow[] = [];
  for (const size of sizes) {
    const scope = `BENCH-${size}-${randomUUID().slice(0, 6)}`;
    await catalogStore.publishIndex(scope, syntheticCatalog(size).adventures.map(summarize));
    // Several cold loads, each in a fresh process: the first also times the queries; the figures of the load are medians.
    const loads = Array.from({ length: LOADS }, (_, n) => {
      const out = execFileSync(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(import.meta.url), 'cold-load', scope, String(size), String(n ? 0 : samples)],
        {
          env: process.env,
          encoding: 'utf8',
          maxBuffer: 16 * MB,
        },
      );
      return JSON.parse(out.trim().split('\n').at(-1)!) as IndexLoadRow;
    });
    const median = (f: (r: IndexLoadRow) => number) => loads.map(f).sort((a, b) => a - b)[Math.floor(LOADS / 2)]!;
    rows.push({
      ...loads[0]!,
      loadMs: median((r) => r.loadMs),
      readMs: median((r) => r.readMs),
      decodeMs: median((r) => r.decodeMs),
      firstPageMs: median((r) => r.firstPageMs),
      firstQMs: median((r) => r.firstQMs),
      rssMB: median((r) => r.rssMB),
      peakRssMB: median((r) => r.peakRssMB),
      loads: loads.map((r) => r.loadMs),
    });
  }
  return rows;
}

export function indexLoadTable(rows: IndexLoadRow[]): string {
  const names = rows[0]?.latency.map((l) => l.name) ?? [];
  const head = [
    'adventures',
    'stored MB: head + text + blocks',
    'load ms (read + decode) [each load]',
    'first page ms',
    'first q ms',
    'heap MB',
    'external MB',
    'RSS MB (peak)',
    ...names.map((n) => `${n} p50/p99 ms`),
  ];
  const lines = rows.map((r) => [
    r.adventures.toLocaleString('en-US').replace(/,/g, ' '),
    `${r.storedMB.head.toFixed(1)} + ${r.storedMB.text.toFixed(1)} + ${r.storedMB.blocks.toFixed(1)}`,
    `${r.loadMs.toFixed(0)} (${r.readMs.toFixed(0)} + ${r.decodeMs.toFixed(0)}) [${(r.loads ?? []).map((l) => l.toFixed(0)).join(', ')}]`,
    r.firstPageMs.toFixed(0),
    r.firstQMs.toFixed(0),
    r.heapMB.toFixed(1),
    r.externalMB.toFixed(1),
    `${r.rssMB.toFixed(0)} (${r.peakRssMB.toFixed(0)})`,
    ...r.latency.map((l) => `${l.p50.toFixed(2)}/${l.p99.toFixed(2)}`),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [fmt(head), `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...lines.map(fmt)].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'cold-load') {
  const [scope, size, samples] = process.argv.slice(3);
  console.log(JSON.stringify(await coldLoad(scope!, Number(size), Number(samples))));
  process.exit(0);
}
