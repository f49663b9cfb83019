import { eventStore } from '../events/store';
import { type EventEnvelope, inEnvelopeOrder } from '../events/types';
import { notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import type { DeliveryRecord } from './model';
import { type DeliveryFilter, webhookStore } from './store';

/** The tenant's delivery log, newest first by created_at; `after` is the index sort key of the last row of the previous page. */
export const listDeliveries = (t: Tenant, q: DeliveryFilter, after?: string) => webhookStore.listDeliveries(t.partnerId, t.env, q, after);

/** The tenant's delivery, found by its id or by the id of one of its attempts (an X-Service-Delivery-Id); 404 for anyone else's. */
export async function getDelivery(t: Tenant, id: string): Promise<DeliveryRecord> {
  const d = await webhookStore.findDelivery(id);
  if (!d || d.partner_id !== t.partnerId || d.env !== t.env) throw notFound('Webhook delivery', id);
  return d;
}

/** The delivery and the event it carries (read from the event's record when the delivery predates carrying it; null once gone). */
export async function getDeliveryWithEvent(t: Tenant, id: string): Promise<{ delivery: DeliveryRecord; event: EventEnvelope | null }> {
  const delivery = await getDelivery(t, id);
  const event = delivery.event ?? (await eventStore.get(delivery.event_ref))?.event;
  return { delivery, event: event ? inEnvelopeOrder(event) : null };
}
