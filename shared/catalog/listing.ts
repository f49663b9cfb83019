import { daysBetween, isoWeekday } from '../kernel/time';
import type { AdventureSummary } from './store';

/**
 * In-memory listing over the catalog index: the whole catalog (10 000
 * adventures is a few MB) is loaded once per container and version, then
 * every query is a filter over a pre-sorted array plus a slice.
 *   popularity: the index order (built sorted), no sort per request
 *   price / -price: pre-sorted once per load
 *   distance: distances computed per request, then sorted (O(n log n))
 */
export interface PreparedCatalog {
  byPopularity: AdventureSummary[];
  byPrice: AdventureSummary[];
  byPriceDesc: AdventureSummary[];
  haystack: Map<string, string>;
}

export function prepare(summaries: AdventureSummary[]): PreparedCatalog {
  const byPopularity = [...summaries].sort((a, b) => b.popularity - a.popularity || a.slug.localeCompare(b.slug));
  const byPrice = [...summaries].sort((a, b) => a.from_price - b.from_price || b.popularity - a.popularity || a.slug.localeCompare(b.slug));
  const byPriceDesc = [...summaries].sort((a, b) => b.from_price - a.from_price || b.popularity - a.popularity || a.slug.localeCompare(b.slug));
  const haystack = new Map(summaries.map((s) => [s.id, `${s.title} ${s.summary} ${s.city} ${s.agency} ${s.category}`.toLowerCase()]));
  return { byPopularity, byPrice, byPriceDesc, haystack };
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
  const toRad = (d: number) => (d * Math.PI) / 180;
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

  if (query.sort === 'distance') {
    const lat = query.lat!;
    const lng = query.lng!;
    const matched = cat.byPopularity.filter(keep).map((adventure) => ({ adventure, distance_km: haversineKm(lat, lng, adventure.lat, adventure.lng) }));
    matched.sort((a, b) => a.distance_km - b.distance_km || a.adventure.slug.localeCompare(b.adventure.slug));
    return { items: matched.slice(query.offset, query.offset + query.limit), total: matched.length };
  }
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
