import { eventStore } from '../events/store';
import { enqueue } from './queue';
import { webhookStore } from './store';

/**
 * Re-drives events never fanned out and deliveries whose attempt is overdue,
 * page by page. `releaseClaims` is for a restart of the whole runtime (the
 * local stack at boot), when no worker survives: the claims of the attempts it
 * interrupted are dropped at once instead of expiring 2 minutes later. Only
 * claims made before `claimedBefore` (the boot) are dropped: a live claim
 * protects an attempt in flight.
 */
export async function sweep(
  now = new Date(),
  graceMs = 120_000,
  opts: { releaseClaims?: boolean; claimedBefore?: Date } = {},
): Promise<{ events: number; deliveries: number }> {
  const cutoff = new Date(now.getTime() - graceMs).toISOString();
  const count = { events: 0, deliveries: 0 };
  for await (const items of eventStore.pendingBefore(cutoff)) {
    await enqueue(items.map((i) => ({ kind: 'fanout' as const, pk: i.pk as string, sk: i.sk as string })));
    count.events += items.length;
  }
  for await (const items of webhookStore.dueBefore(cutoff)) {
    if (opts.releaseClaims) await Promise.all(items.map((i) => webhookStore.releaseClaim(i.id as string, opts.claimedBefore ?? now)));
    await enqueue(items.map((i) => ({ kind: 'attempt' as const, delivery_id: i.id as string, attempt: (i.attempts as number) + 1 })));
    count.deliveries += items.length;
  }
  return count;
}
