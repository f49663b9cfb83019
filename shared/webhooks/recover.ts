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
  /**
   * Deliveries to the endpoint since `since`, not yet DELIVERED, whose next attempt now comes at once: one waiting
   * for a retry is attempted now; one whose attempt is in flight is attempted again as soon as that attempt fails.
   */
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

/** What a recover did to one PENDING delivery: brought its next attempt to now, re-sent its event (it failed meanwhile), or nothing. */
type Hurried = 'forward' | 'resent' | undefined;

/**
 * Makes the next attempt of a delivery not yet DELIVERED come at once, once whatever the concurrency:
 * - waiting for a retry: brought forward to now (bringForward);
 * - its attempt in flight, claimed before this recover began (`started`, real time as claims are): that claim is
 *   marked (requestRetryAfterAttempt), so that if the attempt fails, its next is due at once (attempt.ts);
 * - claimed since this recover began, or due and not claimed: its next attempt is coming at once already.
 * A condition that fails (it moved on meanwhile) reads it again and decides anew. `clock` is the tenant's now.
 */
async function hurry(d: DeliveryRecord, started: number, clock: () => Date, alone: boolean): Promise<Hurried> {
  for (let round = 0; round < 5; round++) {
    const inFlight = d.claimed_attempt === d.attempts + 1 && (d.claim_until ?? 0) >= Date.now();
    if (inFlight) {
      if ((d.claimed_at ?? 0) >= started || d.redrive_claim === d.claim_id) return undefined;
      if (await webhookStore.requestRetryAfterAttempt(d)) return 'forward';
    } else if (d.attempts > 0 && d.next_attempt_at && d.next_attempt_at > clock().toISOString()) {
      if (await bringForward(d, clock())) return 'forward';
    } else return undefined;
    const current = await webhookStore.getDelivery(d.id);
    // Its last attempt failed meanwhile: re-sent as a FAILED one is, unless another delivery carries the event.
    if (current?.status === 'FAILED' && !current.recovered_by) return alone && (await resendOnce(current, clock())) ? 'resent' : undefined;
    if (current?.status !== 'PENDING') return undefined;
    d = current;
  }
  return undefined;
}

/**
 * The endpoint's deliveries created since `since`, each as it is now. Their ids come from the endpoint's rows (read
 * strongly consistent: a delivery committed a moment ago is there) and from the partner's delivery index (which
 * also has the deliveries older than the rows, but shows a change only after a lag); a delivery the index shows
 * DELIVERED or FAILED is settled (FAILED changes only by a recover's conditional claim), any other is read again.
 */
async function endpointDeliveries(t: Tenant, id: string, since: string): Promise<{ deliveries: DeliveryRecord[]; complete: boolean }> {
  const known = new Map<string, DeliveryRecord | undefined>();
  let read = 0;
  let after: string | undefined;
  do {
    const page = await webhookStore.listDeliveries(t.partnerId, t.env, { limit: 100, endpoint_id: id, created_from: since }, after);
    for (const d of page.items) known.set(d.id, d.status === 'PENDING' ? undefined : d);
    read += page.items.length;
    after = page.next;
  } while (after && read < RECOVER_MAX_READ);
  const rows = await webhookStore.endpointDeliveryIds(t.partnerId, t.env, id, since, RECOVER_MAX_READ);
  for (const rowId of rows.ids) if (!known.get(rowId)) known.set(rowId, undefined);
  const reread = await webhookStore.getDeliveries([...known].filter(([, d]) => !d).map(([rowId]) => rowId));
  for (const d of reread) known.set(d.id, d);
  return { deliveries: [...known.values()].filter((d) => d !== undefined), complete: after === undefined && rows.complete };
}

/**
 * Re-sends to one endpoint every event it failed to receive since `since`, each once, as Svix's
 * recover does, and makes the next attempt of every delivery not yet DELIVERED come at once (hurry):
 * one waiting for a retry, one whose attempt is in flight, one the delivery index does not show yet
 * (the endpoint's deliveries are read as they are now: endpointDeliveries). An event is re-sent
 * only if it has a FAILED delivery and none PENDING or DELIVERED, so a second call, or a retry after a
 * crash, sends nothing twice. Each re-send claims the failed delivery in its own transaction
 * (`recovered_by`), and each bringing forward is conditional, so parallel calls do each once between
 * them. With `enable`, a DISABLED endpoint is set ACTIVE first.
 */
export async function recoverEndpoint(
  t: Tenant,
  id: string,
  input: { since: string; enable: boolean },
  seal: Seal<RecoverResult> = unsealed,
  now = tenantNow(t),
): Promise<RecoverResult> {
  // Claims are taken in real time; `now` is the tenant's (a sandbox clock may run ahead).
  const started = Date.now();
  const clock = () => new Date(now.getTime() + (Date.now() - started));
  let endpoint = await getEndpoint(t, id);
  if (endpoint.status !== 'ACTIVE') {
    if (!input.enable)
      throw new ApiError('webhook.endpoint.disabled', 'This endpoint is DISABLED: recover it with "enable": true, or set it ACTIVE first.', {
        status: endpoint.status,
      });
    endpoint = await updateEndpoint(t, id, { status: 'ACTIVE' }, unsealed, now);
  }
  const since = new Date(input.since).toISOString();
  const { deliveries, complete } = await endpointDeliveries(t, id, since);
  const failed = new Map<string, DeliveryRecord>();
  const pending: DeliveryRecord[] = [];
  const carriers = new Map<string, number>();
  for (const d of deliveries) {
    if (d.test_send) continue;
    // A failure a recover already re-sent is carried by its new delivery.
    if (d.status === 'FAILED' && !d.recovered_by) failed.set(d.event_id, failed.get(d.event_id) ?? d);
    else carriers.set(d.event_id, (carriers.get(d.event_id) ?? 0) + 1);
    if (d.status === 'PENDING') pending.push(d);
  }
  const due = [...failed.values()].filter((d) => !carriers.has(d.event_id));
  const batch = due.slice(0, RECOVER_MAX_EVENTS);
  let resent = 0;
  for (const d of batch) if (await resendOnce(d, now)) resent++;
  let broughtForward = 0;
  for (const d of pending.slice(0, RECOVER_MAX_EVENTS)) {
    const done = await hurry(d, started, clock, carriers.get(d.event_id) === 1);
    if (done === 'forward') broughtForward++;
    if (done === 'resent') resent++;
  }
  const result: RecoverResult = {
    endpoint,
    since,
    resent,
    brought_forward: broughtForward,
    truncated: due.length > batch.length || pending.length > RECOVER_MAX_EVENTS || !complete,
  };
  const guards = seal.items(result);
  if (guards.length) {
    const cancelled = await transact(dataTable.client, {}, [], guards);
    if (cancelled) throw new Error(`recover's answer was not recorded (${cancelled.codes.join(', ')})`);
  }
  return result;
}
