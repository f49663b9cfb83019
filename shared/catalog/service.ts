import { tenantNow } from '../kernel/clock';
import { ApiError, notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import { addDays, daysBetween, localDate } from '../kernel/time';
import { withRatings, withRecentRatings } from '../reviews/ratings';
import { inventoryStore } from './inventory';
import type { CatalogScope } from './keys';
import { catalogKeys, inventoryKeys } from './keys';
import { find, fromIndex, type ListingQuery, type PreparedCatalog, prepare } from './listing';
import { catalogScopes } from './scopes';
import { slotsBetween } from './slots';
import { type CatalogMeta, catalogStore, IndexPartMissing } from './store';
import { type AvailabilityView, adventureView, summaryView } from './views';

const cache = new Map<CatalogScope, { indexId: string; prepared: PreparedCatalog; checkedAt: number }>();
/** The check (and load) under way per scope: the requests a container serves at once share one META read. */
const checking = new Map<CatalogScope, Promise<PreparedCatalog>>();
/**
 * How stale a listing may be: production changes (an import, a withdrawal) are picked up within this delay, and
 * the ratings a page shows are at most this old (snapshots never change). Within it a warm page reads nothing.
 */
export const PROD_RECHECK_MS = 5_000;

/** The index of a scope as this container holds it; `fresh`: from META read now (the one held was replaced). */
function prepared(scope: CatalogScope, fresh = false): Promise<PreparedCatalog> {
  const hit = fresh ? undefined : cache.get(scope);
  if (hit && (catalogKeys.isSnapshot(scope) || Date.now() - hit.checkedAt < PROD_RECHECK_MS)) return Promise.resolve(hit.prepared);
  if (fresh) return check(scope, true);
  let p = checking.get(scope);
  if (!p) {
    p = check(scope, false).finally(() => checking.delete(scope));
    checking.set(scope, p);
  }
  return p;
}

async function check(scope: CatalogScope, fresh: boolean): Promise<PreparedCatalog> {
  // Timed from before a strongly consistent read: what it answers is never older than this, so the bound is exact.
  const startedAt = Date.now();
  const meta = await catalogStore.meta(scope, true);
  if (!meta) return prepare([]);
  // The index id, not the version number, names what was built: two concurrent rebuilds share a version.
  const hit = fresh ? undefined : cache.get(scope);
  if (hit && hit.indexId === meta.index_id) {
    hit.checkedAt = startedAt;
    return hit.prepared;
  }
  const p = await loadPrepared(scope, meta);
  if (cache.size > 8) cache.delete(cache.keys().next().value!);
  cache.set(scope, { indexId: meta.index_id, prepared: p, checkedAt: startedAt });
  return p;
}

/** A cold load: the index META names, read and made ready to search (what a container pays on its first listing). */
export async function loadPrepared(scope: CatalogScope, meta: CatalogMeta): Promise<PreparedCatalog> {
  const { head, parts } = await catalogStore.loadIndex(scope, meta);
  return fromIndex(head, parts);
}

export async function listAdventures(t: Tenant, query: ListingQuery, now = tenantNow(t)) {
  const { content, inventory } = await catalogScopes(t);
  const today = localDate(now);
  const { items, total } = await find(await prepared(content), query, today).catch(async (e) => {
    // The index this container held was replaced and its parts deleted: the current one answers.
    if (!(e instanceof IndexPartMissing)) throw e;
    return find(await prepared(content, true), query, today);
  });
  return {
    // Ratings as recent as the index: a warm page reads nothing beyond its authentication.
    items: await withRecentRatings(
      [content, inventory],
      items.map((i) => summaryView(i.adventure, i.distance_km)),
      PROD_RECHECK_MS,
    ),
    total,
  };
}

export async function getAdventure(t: Tenant, slug: string) {
  const { content, inventory } = await catalogScopes(t);
  const a = await catalogStore.adventure(content, slug);
  if (!a) throw notFound('Adventure', slug);
  const [view] = await withRatings([content, inventory], [adventureView(a)]);
  return view!;
}

export const MAX_AVAILABILITY_DAYS = 62;

/** Bookable slots of one adventure between two dates: departures (SCHEDULED) or days (FLEXIBLE), with seats left. */
export async function availability(
  t: Tenant,
  slug: string,
  q: { from?: string; to?: string; rate_pack_id?: string },
  now = tenantNow(t),
): Promise<AvailabilityView> {
  const { content, inventory } = await catalogScopes(t);
  const a = await catalogStore.adventure(content, slug);
  if (!a) throw notFound('Adventure', slug);
  const today = localDate(now);
  const from = q.from ?? today;
  const to = q.to ?? addDays(from, 13);
  if (to < from) {
    throw new ApiError('validation.field.invalid', "'to' must not be before 'from'.", {
      errors: [{ field: 'to', location: 'query', message: 'before from', expected: `on or after ${from}` }],
    });
  }
  // A range that ended before today (Morocco time) has nothing bookable: say so rather than answer an empty list.
  if (to < today) {
    throw new ApiError('validation.field.invalid', `The range ends before today (${today}, Morocco time): nothing in it can be booked.`, {
      errors: [{ field: 'to', location: 'query', message: 'in the past', expected: `on or after ${today}` }],
    });
  }
  if (daysBetween(from, to) >= MAX_AVAILABILITY_DAYS) {
    throw new ApiError('validation.field.invalid', `The date range may span at most ${MAX_AVAILABILITY_DAYS} days.`, {
      errors: [{ field: 'to', location: 'query', message: 'range too long', expected: `at most ${addDays(from, MAX_AVAILABILITY_DAYS - 1)}` }],
    });
  }
  const packs = a.rate_packs.filter((rp) => !q.rate_pack_id || rp.id === q.rate_pack_id);
  if (q.rate_pack_id && packs.length === 0) throw notFound('Rate pack', q.rate_pack_id);
  // ISO dates compare as strings (Math.max would coerce them to NaN).
  const start = from < today ? today : from;
  const data: AvailabilityView['data'] = [];
  if (a.active && start <= to) {
    const rows = await Promise.all(packs.map((rp) => inventoryStore.range(inventory, rp.id, start, to)));
    packs.forEach((rp, i) => {
      for (const slot of slotsBetween(rp, start, to, now)) {
        const row = rows[i]!.get(inventoryKeys.slot(slot));
        const remaining = row?.closed ? 0 : slot.capacity - (row?.sold ?? 0);
        if (remaining <= 0) continue;
        data.push({ rate_pack_id: rp.id, booking_mode: rp.booking_mode, date: slot.date, start_time: slot.start_time, capacity: slot.capacity, remaining });
      }
    });
  }
  data.sort((x, y) => x.date.localeCompare(y.date) || (x.start_time ?? '').localeCompare(y.start_time ?? '') || x.rate_pack_id.localeCompare(y.rate_pack_id));
  return { adventure_id: a.id, adventure_slug: a.slug, from: start, to, data };
}
