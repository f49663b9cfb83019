import { dataTable, type Seal, transact, unsealed } from '../db/client';
import { tenantNow } from '../kernel/clock';
import { ApiError } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import { getEndpoint, updateEndpoint } from './endpoints';
import type { DeliveryRecord, EndpointRecord } from './model';
import { enqueue } from './queue';
import { resendOnce } from './replay';
import { webhookStore } from './store';

/** At most this many deliveries of the endpoint are read, and this many events re-sent, per call. */
export const RECOVER_MAX_READ = 5_000;
export const RECOVER_MAX_EVENTS = 500;

export interface RecoverResult {
  endpoint: EndpointRecord;
  since: string;
  /** Events whose every delivery to the endpoint since `since` failed, and that got a new delivery now. */
  resent: number;
  /** Deliveries to the endpoint since `since` that were waiting for a retry, now attempted at once. */
  brought_forward: number;
  /** More than one call's worth: call again with the same `since` for the rest (nothing is sent twice). */
  truncated: boolean;
}

/**
 * A delivery waiting for its next retry, attempted now instead: its next attempt made due now (conditional on the
 * due time read, so of two recovers one does it), then enqueued. The retry scheduled for later finds that attempt
 * done and is skipped (attempt.ts claims each attempt number once): attempted once, not twice.
 */
async function bringForward(d: DeliveryRecord, now: Date): Promise<boolean> {
  const redriven = await webhookStore.redriveNow(d, now, unsealed, d.next_attempt_at!);
  if (!redriven) return false;
  await enqueue([{ kind: 'attempt', delivery_id: redriven.id, attempt: redriven.attempts + 1 }]);
  return true;
}

/**
 * Re-sends to one endpoint every event it failed to receive since `since`, each once, as Svix's
 * recover does: the endpoint's deliveries since then are read newest first (one Query of the
 * partner's delivery index, bounded by its sort key), and an event is re-sent only if it has a
 * FAILED delivery and none PENDING or DELIVERED. So a second call, or a retry after a crash, sends
 * nothing twice. Each re-send claims the failed delivery in its own transaction (`recovered_by`), so parallel
 * calls, or a call reading an index that lags, re-send each failure once between them. With `enable`, a
 * DISABLED endpoint is set ACTIVE first. Deliveries waiting for a retry are brought forward to now (bringForward).
 */
export async function recoverEndpoint(
  t: Tenant,
  id: string,
  input: { since: string; enable: boolean },
  seal: Seal<RecoverResult> = unsealed,
  now = tenantNow(t),
): Promise<RecoverResult> {
  let endpoint = await getEndpoint(t, id);
  if (endpoint.status !== 'ACTIVE') {
    if (!input.enable)
      throw new ApiError('webhook.endpoint.disabled', 'This endpoint is DISABLED: recover it with "enable": true, or set it ACTIVE first.', {
        status: endpoint.status,
      });
    endpoint = await updateEndpoint(t, id, { status: 'ACTIVE' }, unsealed, now);
  }
  const since = new Date(input.since).toISOString();
  const failed = new Map<string, DeliveryRecord>();
  const carried = new Set<string>();
  const waiting: DeliveryRecord[] = [];
  let read = 0;
  let after: string | undefined;
  do {
    const page = await webhookStore.listDeliveries(t.partnerId, t.env, { limit: 100, endpoint_id: id, created_from: since }, after);
    for (const d of page.items) {
      if (d.test_send) continue;
      // A failure a recover already re-sent is carried by its new delivery, even where the index does not show it yet.
      if (d.status === 'FAILED' && !d.recovered_by) failed.set(d.event_id, failed.get(d.event_id) ?? d);
      else carried.add(d.event_id);
      // Failed at least once and waiting for its next retry (up to 24 h away): the receiver is fixed, so now.
      if (d.status === 'PENDING' && d.attempts > 0 && d.next_attempt_at && d.next_attempt_at > now.toISOString()) waiting.push(d);
    }
    read += page.items.length;
    after = page.next;
  } while (after && read < RECOVER_MAX_READ);
  const due = [...failed.values()].filter((d) => !carried.has(d.event_id));
  const batch = due.slice(0, RECOVER_MAX_EVENTS);
  let resent = 0;
  for (const d of batch) if (await resendOnce(t, d, now)) resent++;
  let broughtForward = 0;
  for (const d of waiting.slice(0, RECOVER_MAX_EVENTS)) if (await bringForward(d, now)) broughtForward++;
  const result: RecoverResult = {
    endpoint,
    since,
    resent,
    brought_forward: broughtForward,
    truncated: due.length > batch.length || waiting.length > RECOVER_MAX_EVENTS || after !== undefined,
  };
  const guards = seal.items(result);
  if (guards.length) {
    const cancelled = await transact(dataTable.client, {}, [], guards);
    if (cancelled) throw new Error(`recover's answer was not recorded (${cancelled.codes.join(', ')})`);
  }
  return result;
}
