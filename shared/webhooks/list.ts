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
