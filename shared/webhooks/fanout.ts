import { dataTable, transact } from '../db/client';
import { eventStore } from '../events/store';
import type { EventRef } from '../events/types';
import { newDelivery } from './deliveries';
import { enqueue } from './queue';
import { MAX_ENDPOINTS, webhookStore } from './store';

/**
 * Fans one recorded event out: one delivery per ACTIVE endpoint of its
 * partner and environment subscribed to its type, written in one transaction
 * with the event's dispatched mark, then their first attempts are queued.
 */
export async function fanOut(ref: EventRef, now = new Date()): Promise<number> {
  const record = await eventStore.get(ref, true);
  if (record?.dispatch !== 'PENDING') return 0;
  const ev = record.event;
  // At most 16 endpoints per environment (enforced at creation), so the transaction stays far below 100 items.
  const endpoints = (await webhookStore.listEndpoints(record.partner_id, record.env))
    .filter((e) => e.status === 'ACTIVE' && e.event_types.includes(ev.type))
    .slice(0, MAX_ENDPOINTS);
  const deliveries = endpoints.map((ep) => newDelivery(ev, ref, ep, now));
  const cancelled = await transact(
    dataTable.client,
    { event: eventStore.markDispatched(ref, deliveries.length, now) },
    deliveries.map(webhookStore.putDelivery),
  );
  if (cancelled) return 0; // another worker fanned it out
  await enqueue(deliveries.map((d) => ({ kind: 'attempt' as const, delivery_id: d.id, attempt: 1 })));
  return deliveries.length;
}
