import { dataTable, type Seal, transact, unsealed } from '../db/client';
import { eventStore } from '../events/store';
import type { Tenant } from '../kernel/tenant';
import { newDelivery } from './deliveries';
import { getDelivery } from './list';
import type { DeliveryRecord } from './model';
import { enqueue } from './queue';
import { webhookStore } from './store';

/**
 * Re-drives one delivery of the tenant, so that one delivery at a time
 * carries the event to the endpoint:
 * - PENDING: the same delivery, its next attempt due now (a scheduled retry
 *   that comes later finds that attempt done and is skipped);
 * - DELIVERED or FAILED: a new delivery of the same event to the same
 *   endpoint, attempted now, with `replay_of` naming the original.
 * Either way the answer is the delivery that will be attempted.
 */
export async function replay(t: Tenant, id: string, seal: Seal<DeliveryRecord> = unsealed, now = new Date()): Promise<DeliveryRecord> {
  for (let round = 0; ; round++) {
    const original = await getDelivery(t, id);
    if (original.status === 'PENDING') {
      const redriven = await webhookStore.redriveNow(original, now, seal);
      if (!redriven) {
        // It moved on meanwhile (an attempt was recorded): decide again on what it is now.
        if (round >= 5) throw new Error(`delivery ${original.id} kept changing during its replay`);
        continue;
      }
      await enqueue([{ kind: 'attempt', delivery_id: redriven.id, attempt: redriven.attempts + 1 }]);
      return redriven;
    }
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
}
