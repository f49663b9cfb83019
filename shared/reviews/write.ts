import { dataTable, type Guard, type TransactItem, transact } from '../db/client';
import { backoff } from '../db/retry';
import { ApiError } from '../kernel/errors';

/**
 * Runs a review change, retrying when concurrent transactions on the same
 * rating aggregate (or the same review) collide: `attempt` re-reads what it
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
