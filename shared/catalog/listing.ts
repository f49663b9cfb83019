import { daysBetween, isoWeekday } from '../kernel/time';
import type { AdventureSummary } from './store';

/**
 * In-memory listing over the catalog index: the whole catalog (10 000
 * adventures is a few MB) is loaded once per container and version, then
 * every query is a filter over a pre-sorted array plus a slice.
 *   popularity: the index order (built sorted), no sort per request
 *   price / -price: pre-sorted once per load
 *   distance: a grid of cells built once per load; a query visits the cells
 *     nearest first and stops once the page is certain, so it sorts only what
 *     the page needs, not every match; each item's point on the unit sphere is
 *     computed once per load, so an item that cannot reach the page is ruled
 *     out by a few multiplications instead of a haversine
 */
export interface PreparedCatalog {
  byPopularity: AdventureSummary[];
  byPrice: AdventureSummary[];
  byPriceDesc: AdventureSummary[];
  haystack: Map<string, string>;
  /** Adventures by grid cell of CELL_DEGREES, each cell with its bounds. */
  cells: Cell[];
}

interface Cell {
  latMin: number;
  lngMin: number;
  items: AdventureSummary[];
  /** items[i]'s point on the unit sphere at xyz[3i], xyz[3i + 1], xyz[3i + 2]. */
  xyz: Float64Array;
}

/** Grid cells of half a degree (about 55 km): a few hundred cells hold a national catalog. */
const CELL_DEGREES = 0.5;

function gridOf(summaries: AdventureSummary[]): Cell[] {
  const cells = new Map<string, Omit<Cell, 'xyz'>>();
  for (const s of summaries) {
    const latMin = Math.floor(s.lat / CELL_DEGREES) * CELL_DEGREES;
    const lngMin = Math.floor(s.lng / CELL_DEGREES) * CELL_DEGREES;
    const key = `${latMin} ${lngMin}`;
    const cell = cells.get(key) ?? { latMin, lngMin, items: [] };
    cells.set(key, cell);
    cell.items.push(s);
  }
  return [...cells.values()].map((c) => {
    const xyz = new Float64Array(c.items.length * 3);
    for (const [i, a] of c.items.entries()) xyz.set(unitVector(a.lat, a.lng), i * 3);
    return { ...c, xyz };
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

export function prepare(summaries: AdventureSummary[]): PreparedCatalog {
  const byPopularity = [...summaries].sort((a, b) => b.popularity - a.popularity || a.slug.localeCompare(b.slug));
  const byPrice = [...summaries].sort((a, b) => a.from_price - b.from_price || b.popularity - a.popularity || a.slug.localeCompare(b.slug));
  const byPriceDesc = [...summaries].sort((a, b) => b.from_price - a.from_price || b.popularity - a.popularity || a.slug.localeCompare(b.slug));
  const haystack = new Map(summaries.map((s) => [s.id, `${s.title} ${s.summary} ${s.city} ${s.agency} ${s.category}`.toLowerCase()]));
  return { byPopularity, byPrice, byPriceDesc, haystack, cells: gridOf(summaries) };
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

export function search(cat: PreparedCatalog, query: ListingQuery, today: string): { items: ListedAdventure[]; total: number } {
  const q = query.q?.trim().toLowerCase();
  const city = query.city?.toLowerCase();
  const weekday = query.date ? isoWeekday(query.date) : undefined;
  const ahead = query.date ? daysBetween(today, query.date) : undefined;
  const keep = (a: AdventureSummary) =>
    (!q || cat.haystack.get(a.id)!.includes(q)) &&
    (!city || a.city.toLowerCase() === city) &&
    (!query.category || a.category === query.category) &&
    (query.min_price === undefined || a.from_price >= query.min_price) &&
    (query.max_price === undefined || a.from_price <= query.max_price) &&
    (weekday === undefined || (a.active && ahead! >= 0 && a.sells.some((p) => p.weekdays.includes(weekday) && ahead! <= p.window_days)));

  if (query.sort === 'distance') return nearest(cat, query, keep);
  const source = query.sort === 'price' ? cat.byPrice : query.sort === '-price' ? cat.byPriceDesc : cat.byPopularity;
  const items: ListedAdventure[] = [];
  let total = 0;
  for (const a of source) {
    if (!keep(a)) continue;
    if (total >= query.offset && items.length < query.limit) {
      items.push(
        query.lat !== undefined && query.lng !== undefined ? { adventure: a, distance_km: haversineKm(query.lat, query.lng, a.lat, a.lng) } : { adventure: a },
      );
    }
    total++;
  }
  return { items, total };
}

const byDistance = (a: ListedAdventure, b: ListedAdventure) => a.distance_km! - b.distance_km! || a.adventure.slug.localeCompare(b.adventure.slug);

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
function nearest(cat: PreparedCatalog, query: ListingQuery, keep: (a: AdventureSummary) => boolean): { items: ListedAdventure[]; total: number } {
  const lat = query.lat!;
  const lng = query.lng!;
  const needed = query.offset + query.limit;
  const cells = cat.cells.map((c) => ({ c, bound: cellLowerBoundKm(lat, lng, c) })).sort((a, b) => a.bound - b.bound);
  const [px, py, pz] = unitVector(lat, lng);
  const found: ListedAdventure[] = [];
  const kth = new SmallestK(needed);
  // The squared chord beyond which an item cannot reach the page (with slack); Infinity until the page is full.
  let chordLimit = Number.POSITIVE_INFINITY;
  let total = 0;
  for (const { c, bound } of cells) {
    const certain = kth.full && bound > kth.top;
    const xyz = c.xyz;
    for (let i = 0; i < c.items.length; i++) {
      const a = c.items[i]!;
      if (!keep(a)) continue;
      total++;
      if (certain) continue;
      const dx = xyz[3 * i]! - px;
      const dy = xyz[3 * i + 1]! - py;
      const dz = xyz[3 * i + 2]! - pz;
      if (dx * dx + dy * dy + dz * dz > chordLimit) continue;
      const distance_km = haversineKm(lat, lng, a.lat, a.lng);
      // Farther than the page's last place so far: it can never be on the page (a tie is kept for the slug order).
      if (kth.full && distance_km > kth.top) continue;
      found.push({ adventure: a, distance_km });
      kth.add(distance_km);
      if (kth.full) chordLimit = chordLimitFor(kth.top);
    }
  }
  found.sort(byDistance);
  return { items: found.slice(query.offset, needed), total };
}
