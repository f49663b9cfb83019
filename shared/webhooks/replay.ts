import { dataTable, type Seal, transact, unsealed } from '../db/client';
import { eventStore } from '../events/store';
import { notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import { newDelivery } from './deliveries';
import type { DeliveryRecord } from './model';
import { enqueue } from './queue';
import { webhookStore } from './store';

/** Re-drives one delivery of the tenant: the same event to the same endpoint, as a new delivery attempted now (new delivery ids). */
export async function replay(t: Tenant, deliveryId: string, seal: Seal<DeliveryRecord> = unsealed, now = new Date()): Promise<DeliveryRecord> {
  const original = await webhookStore.getDelivery(deliveryId);
  if (!original || original.partner_id !== t.partnerId || original.env !== t.env) throw notFound('Webhook delivery', deliveryId);
  const [record, ep] = await Promise.all([
    eventStore.get(original.event_ref),
    webhookStore.getEndpoint(original.partner_id, original.env, original.endpoint_id),
  ]);
  const d = newDelivery(
    record!.event,
    original.event_ref,
    ep ?? { partner_id: original.partner_id, env: original.env, id: original.endpoint_id, url: original.url },
    now,
    original.id,
  );
  const cancelled = await transact(dataTable.client, { delivery: webhookStore.putDelivery(d) }, [], seal.items(d));
  if (cancelled) throw new Error(`replay was cancelled (${cancelled.codes.join(', ')})`);
  await enqueue([{ kind: 'attempt', delivery_id: d.id, attempt: 1 }]);
  return d;
}
