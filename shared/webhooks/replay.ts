import { dataTable, type Seal, transact, unsealed } from '../db/client';
import { backoff } from '../db/retry';
import { eventStore } from '../events/store';
import { tenantNow } from '../kernel/clock';
import { ApiError } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import { newDelivery } from './deliveries';
import { getDelivery } from './list';
import type { DeliveryRecord } from './model';
import { enqueue } from './queue';
import { spendManualSend } from './send-budget';
import { COUNT_BACKOFF_CAP_MS, COUNT_RETRIES, webhookStore } from './store';

/**
 * Re-drives one delivery of the tenant, so that one delivery at a time
 * carries the event to the endpoint:
 * - PENDING: the same delivery, its next attempt due now (a scheduled retry
 *   that comes later finds that attempt done and is skipped);
 * - DELIVERED or FAILED: a new delivery of the same event to the same
 *   endpoint, attempted now, with `replay_of` naming the original.
 * Either way the answer is the delivery that will be attempted. Each replay spends one of the partner's
 * manual sends (send-budget.ts) unless `budgeted` is false (an operator's).
 */
export async function replay(
  t: Tenant,
  id: string,
  seal: Seal<DeliveryRecord> = unsealed,
  { now = tenantNow(t), budgeted = true }: { now?: Date; budgeted?: boolean } = {},
): Promise<DeliveryRecord> {
  for (let round = 0; ; round++) {
    const original = await getDelivery(t, id);
    // A deleted endpoint receives nothing: a replay to it would only fail (or reach a URL the partner gave up).
    if (!(await webhookStore.getEndpoint(t.partnerId, t.env, original.endpoint_id))) throw endpointDeleted(original.endpoint_id);
    // A partner's replay spends its budget of manual sends (an operator's does not), before anything is sent.
    if (round === 0 && budgeted) await spendManualSend(t, original.endpoint_id);
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
    const d = await newDeliveryOf(original, now);
    const cancelled = await transact(dataTable.client, {}, webhookStore.createDeliveries([d]), seal.items(d));
    if (cancelled) {
      // The endpoint's count of PENDING deliveries is shared with its other deliveries: a concurrent change is retried.
      if (!cancelled.conflict || round >= COUNT_RETRIES) throw new Error(`replay was cancelled (${cancelled.codes.join(', ')})`);
      await backoff(round, 10, COUNT_BACKOFF_CAP_MS);
      continue;
    }
    await enqueue([{ kind: 'attempt', delivery_id: d.id, attempt: 1 }]);
    return d;
  }
}

const endpointDeleted = (id: string) =>
  new ApiError('webhook.endpoint.deleted', `Webhook endpoint ${id} was deleted: its deliveries cannot be replayed.`, { id });

/** A new delivery of the original's event to its endpoint, replaying it. */
async function newDeliveryOf(original: DeliveryRecord, now: Date): Promise<DeliveryRecord> {
  const [record, ep] = await Promise.all([
    eventStore.get(original.event_ref),
    webhookStore.getEndpoint(original.partner_id, original.env, original.endpoint_id),
  ]);
  return newDelivery(
    record!.event,
    original.event_ref,
    ep ?? { partner_id: original.partner_id, env: original.env, id: original.endpoint_id, url: original.url },
    now,
    original.id,
  );
}

/**
 * Re-sends a FAILED delivery's event once, whatever the concurrency (a recover): the new delivery is put in the
 * same transaction that claims the failed one (`recovered_by`). Undefined when another call claimed it first.
 * `now` is the tenant's (a sandbox's clock).
 */
export async function resendOnce(failed: DeliveryRecord, now: Date): Promise<DeliveryRecord | undefined> {
  for (let round = 0; ; round++) {
    const d = await newDeliveryOf(failed, now);
    const cancelled = await transact(dataTable.client, { claim: webhookStore.claimRecovery(failed.id, d.id) }, webhookStore.createDeliveries([d]));
    if (!cancelled) {
      await enqueue([{ kind: 'attempt', delivery_id: d.id, attempt: 1 }]);
      return d;
    }
    if (cancelled.failed('claim')) return undefined;
    if (!cancelled.conflict || round >= COUNT_RETRIES) throw new Error(`recover's re-send was cancelled (${cancelled.codes.join(', ')})`);
    // A concurrent recover's transaction: if it claimed the failure, it re-sends it. Else another change met it on
    // the endpoint's count of PENDING deliveries: tried again.
    if ((await webhookStore.getDelivery(failed.id))?.recovered_by) return undefined;
    await backoff(round, 10, COUNT_BACKOFF_CAP_MS);
  }
}
