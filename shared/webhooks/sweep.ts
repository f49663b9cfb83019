import { eventStore } from '../events/store';
import { enqueue } from './queue';
import { webhookStore } from './store';

/** Re-drives events never fanned out and deliveries whose attempt is overdue, page by page. */
export async function sweep(now = new Date(), graceMs = 120_000): Promise<{ events: number; deliveries: number }> {
  const cutoff = new Date(now.getTime() - graceMs).toISOString();
  const count = { events: 0, deliveries: 0 };
  for await (const items of eventStore.pendingBefore(cutoff)) {
    await enqueue(items.map((i) => ({ kind: 'fanout' as const, pk: i.pk as string, sk: i.sk as string })));
    count.events += items.length;
  }
  for await (const items of webhookStore.dueBefore(cutoff)) {
    await enqueue(items.map((i) => ({ kind: 'attempt' as const, delivery_id: i.id as string, attempt: (i.attempts as number) + 1 })));
    count.deliveries += items.length;
  }
  return count;
}
