import { average } from './rules';
import { reviewStore } from './store';

/**
 * The catalog's rating figures: the average and count of the visible reviews
 * of each adventure in the given spaces, from the aggregates that every
 * create, edit and moderation updates in its own transaction (no scan).
 */
export async function withRatings<T extends { id: string; rating: number; review_count: number }>(spaces: string[], items: T[]): Promise<T[]> {
  if (items.length === 0) return items;
  const totals = await reviewStore.ratings(spaces, [...new Set(items.map((i) => i.id))]);
  return items.map((i) => {
    const t = totals.get(i.id) ?? { sum: 0, count: 0 };
    return { ...i, rating: average(t.sum, t.count), review_count: t.count };
  });
}
