import { average } from './rules';
import { reviewStore } from './store';

type Totals = { sum: number; count: number };
type Rated = { id: string; rating: number; review_count: number };

const rated = <T extends Rated>(items: T[], totals: (id: string) => Totals | undefined): T[] =>
  items.map((i) => {
    const t = totals(i.id) ?? { sum: 0, count: 0 };
    return { ...i, rating: average(t.sum, t.count), review_count: t.count };
  });

/**
 * The catalog's rating figures: the average and count of the visible reviews
 * of each adventure in the given spaces, from the aggregates that every
 * create, edit and moderation updates in its own transaction (no scan).
 */
export async function withRatings<T extends Rated>(spaces: string[], items: T[]): Promise<T[]> {
  if (items.length === 0) return items;
  const totals = await reviewStore.ratings(spaces, [...new Set(items.map((i) => i.id))]);
  return rated(items, (id) => totals.get(id));
}

/** Totals read by this container, by spaces and reviewable, with when their read began. */
const recent = new Map<string, Totals & { at: number }>();
/** About 150 bytes each: a few MB at most, whatever the catalog's size. */
const RECENT_MAX = 20_000;

/**
 * `withRatings` for the listing: totals this container read less than
 * `maxAgeMs` ago are shown as they were (a warm page reads nothing); the
 * others are read, all in one `reviewStore.ratings`.
 */
export async function withRecentRatings<T extends Rated>(spaces: string[], items: T[], maxAgeMs: number): Promise<T[]> {
  const prefix = `${spaces.join('|')}|`;
  const held = new Map<string, Totals>();
  const stale: string[] = [];
  for (const id of new Set(items.map((i) => i.id))) {
    const e = recent.get(prefix + id);
    if (e && Date.now() - e.at < maxAgeMs) held.set(id, e);
    else stale.push(id);
  }
  if (stale.length > 0) {
    // Timed from before the read: what it answers is never older than this.
    const at = Date.now();
    const totals = await reviewStore.ratings(spaces, stale);
    for (const id of stale) {
      const t = totals.get(id) ?? { sum: 0, count: 0 };
      held.set(id, t);
      // Deleted first, so the Map's order stays the order of the reads (the oldest go first below).
      recent.delete(prefix + id);
      recent.set(prefix + id, { ...t, at });
    }
    for (const key of recent.keys()) {
      if (recent.size <= RECENT_MAX) break;
      recent.delete(key);
    }
  }
  return rated(items, (id) => held.get(id));
}
