import { dataTable, type Guard, type TransactItem, transact } from '../db/client';
import { backoff } from '../db/retry';
import { ApiError } from '../kernel/errors';
import { logger } from '../kernel/logger';
import { reviewStore } from './store';

/**
 * After a review change committed: its rating delta goes into the aggregate
 * (best effort: a fold that loses a race, or fails, leaves the delta pending,
 * counted by every read, for the next fold).
 */
export async function foldRating(space: string, reviewableId: string): Promise<void> {
  try {
    await reviewStore.fold(space, reviewableId);
  } catch (e) {
    logger.warn('rating fold failed', { error: (e as Error).message, reviewable_id: reviewableId });
  }
}

/**
 * Runs a review change, retrying when concurrent transactions on the same
 * review collide (the rating aggregate is never in them): `attempt` re-reads what it
 * needs and returns its items, or throws a typed refusal.
 */
export async function commitWithRetry(
  attempt: () => Promise<{
    named: Record<string, TransactItem>;
    extra?: TransactItem[];
    guards?: Guard[];
    onRefused: (failed: (name: string) => boolean) => Error | undefined;
  }>,
  tries = 12,
): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (i > 0) await backoff(i, 20, 400);
    const a = await attempt();
    const cancelled = await transact(dataTable.client, a.named, a.extra ?? [], a.guards ?? []);
    if (!cancelled) return;
    const refusal = a.onRefused((n) => cancelled.failed(n));
    if (refusal) throw refusal;
  }
  throw new ApiError('review.write.conflict', 'Too many concurrent changes to this review or its rating; retry shortly.', undefined, { 'retry-after': '1' });
}
