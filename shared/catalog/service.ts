import { ApiError, notFound } from '../errors';
import type { Principal } from '../http/context';
import { money, toMinor } from '../money';
import { prepare, search, type ListingQuery, type PreparedCatalog } from './listing';
import { catalogRepository, inventoryRepository, PROD, summarize, type AdventureSummary, type CatalogScope } from './repository';
import { slotKey, slotsBetween } from './slots';
import { addDays, daysBetween, localDate } from './time';

export interface Scopes {
  /** Whose catalog content: PROD or the tenant's sandbox snapshot. */
  content: CatalogScope;
  /** Whose seats: LIVE, or SBX#<partner> for the tenant's isolated sandbox inventory. */
  inventory: string;
}

let currentSandbox: { scope: CatalogScope; at: number } | undefined;
const SANDBOX_POINTER_TTL_MS = 5_000;

/** Live keys see production; sandbox keys their tenant's clone (the current snapshot until their first refresh). */
export async function scopesFor(p: Principal): Promise<Scopes> {
  if (p.env === 'live') return { content: PROD, inventory: 'LIVE' };
  let content = p.sandboxCatalog;
  if (!content) {
    if (!currentSandbox || Date.now() - currentSandbox.at > SANDBOX_POINTER_TTL_MS) {
      const scope = await catalogRepository.currentSandboxScope();
      currentSandbox = scope ? { scope, at: Date.now() } : undefined;
    }
    content = currentSandbox?.scope ?? PROD;
  }
  return { content, inventory: `SBX#${p.partnerId}` };
}

const cache = new Map<CatalogScope, { indexId: string; prepared: PreparedCatalog; checkedAt: number }>();
/** Production changes are picked up within this delay; snapshots never change. */
const PROD_RECHECK_MS = 5_000;

async function prepared(scope: CatalogScope): Promise<PreparedCatalog> {
  const hit = cache.get(scope);
  const immutable = scope.startsWith('SNAP#');
  if (hit && (immutable || Date.now() - hit.checkedAt < PROD_RECHECK_MS)) return hit.prepared;
  const meta = await catalogRepository.meta(scope);
  if (!meta) return prepare([]);
  // The index id, not the version number, names what was built: two concurrent rebuilds share a version.
  if (hit && hit.indexId === meta.index_id) {
    hit.checkedAt = Date.now();
    return hit.prepared;
  }
  const p = prepare(await catalogRepository.loadIndex(scope, meta));
  if (cache.size > 8) cache.delete(cache.keys().next().value!);
  cache.set(scope, { indexId: meta.index_id, prepared: p, checkedAt: Date.now() });
  return p;
}

export function summaryView(a: AdventureSummary, distanceKm?: number) {
  return {
    id: a.id,
    slug: a.slug,
    title: a.title,
    summary: a.summary,
    city: a.city,
    category: a.category,
    location: { lat: a.lat, lng: a.lng },
    duration_minutes: a.duration_minutes,
    rating: a.rating,
    review_count: a.review_count,
    popularity: a.popularity,
    from_price: money(a.from_price),
    booking_modes: a.booking_modes,
    image: a.image,
    agency_name: a.agency,
    bookable: a.active,
    ...(distanceKm !== undefined ? { distance_km: Math.round(distanceKm * 10) / 10 } : {}),
  };
}

export async function listAdventures(p: Principal, query: ListingQuery, now = new Date()) {
  const { content } = await scopesFor(p);
  const { items, total } = search(await prepared(content), query, localDate(now));
  return { items: items.map((i) => summaryView(i.adventure, i.distance_km)), total };
}

export async function getAdventure(p: Principal, slug: string) {
  const { content } = await scopesFor(p);
  const a = await catalogRepository.adventure(content, slug);
  if (!a) throw notFound('Adventure', slug);
  const s = summarize(a);
  return {
    ...summaryView(s),
    description: a.description,
    images: a.images,
    agency: a.agency,
    rate_packs: a.rate_packs.map((rp) => ({
      id: rp.id,
      name: rp.name,
      description: rp.description ?? null,
      booking_mode: rp.booking_mode,
      age_brackets: rp.age_brackets.map((b) => ({ code: b.code, label: b.label, min_age: b.min_age, max_age: b.max_age, price: money(toMinor(b.price)) })),
      min_travelers: rp.min_travelers,
      max_travelers: rp.max_travelers,
      cancellation_policy: rp.cancellation_policy,
      schedule:
        rp.booking_mode === 'SCHEDULED'
          ? { weekdays: rp.schedule.weekdays, start_times: rp.schedule.start_times, capacity_per_departure: rp.schedule.capacity_per_departure }
          : { weekdays: rp.schedule.weekdays, daily_capacity: rp.schedule.daily_capacity },
      booking_window_days: rp.booking_window_days ?? 60,
    })),
  };
}

export const MAX_AVAILABILITY_DAYS = 62;

/** Bookable slots of one adventure between two dates: departures (SCHEDULED) or days (FLEXIBLE), with seats left. */
export async function availability(p: Principal, slug: string, q: { from?: string; to?: string; rate_pack_id?: string }, now = new Date()) {
  const { content, inventory } = await scopesFor(p);
  const a = await catalogRepository.adventure(content, slug);
  if (!a) throw notFound('Adventure', slug);
  const today = localDate(now);
  const from = q.from ?? today;
  const to = q.to ?? addDays(from, 13);
  if (to < from) throw new ApiError('validation.field.invalid', "'to' must not be before 'from'.", { errors: [{ field: 'to', location: 'query', message: 'before from', expected: `on or after ${from}` }] });
  if (daysBetween(from, to) >= MAX_AVAILABILITY_DAYS) {
    throw new ApiError('validation.field.invalid', `The date range may span at most ${MAX_AVAILABILITY_DAYS} days.`, {
      errors: [{ field: 'to', location: 'query', message: 'range too long', expected: `at most ${addDays(from, MAX_AVAILABILITY_DAYS - 1)}` }],
    });
  }
  const packs = a.rate_packs.filter((rp) => !q.rate_pack_id || rp.id === q.rate_pack_id);
  if (q.rate_pack_id && packs.length === 0) throw notFound('Rate pack', q.rate_pack_id);
  const start = from < today ? today : from;
  const data: { rate_pack_id: string; booking_mode: string; date: string; start_time: string | null; capacity: number; remaining: number }[] = [];
  if (a.active && start <= to) {
    const rows = await Promise.all(packs.map((rp) => inventoryRepository.range(inventory, rp.id, start, to)));
    packs.forEach((rp, i) => {
      for (const slot of slotsBetween(rp, start, to, now)) {
        const row = rows[i]!.get(slotKey(slot));
        const remaining = row?.closed ? 0 : slot.capacity - (row?.sold ?? 0);
        if (remaining <= 0) continue;
        data.push({ rate_pack_id: rp.id, booking_mode: rp.booking_mode, date: slot.date, start_time: slot.start_time, capacity: slot.capacity, remaining });
      }
    });
  }
  data.sort((x, y) => x.date.localeCompare(y.date) || (x.start_time ?? '').localeCompare(y.start_time ?? '') || x.rate_pack_id.localeCompare(y.rate_pack_id));
  return { adventure_id: a.id, adventure_slug: a.slug, from: start, to, data };
}
