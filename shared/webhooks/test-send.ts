import { dataTable, type Seal, transact, unsealed } from '../db/client';
import { backoff } from '../db/retry';
import { recordEvent } from '../events/record';
import type { EventType } from '../events/types';
import { tenantNow } from '../kernel/clock';
import type { Tenant } from '../kernel/tenant';
import { envelopeBytes, newDelivery } from './deliveries';
import { getEndpoint } from './endpoints';
import { exampleData } from './examples';
import type { DeliveryRecord } from './model';
import { signingSecrets } from './rotation';
import { ATTEMPT_CLAIM_MS } from './schedule';
import { spendManualSend } from './send-budget';
import { sendAttempt } from './sender';
import { type AttemptClaim, type AttemptOutcome, COUNT_BACKOFF_CAP_MS, COUNT_RETRIES, webhookStore } from './store';

/** Shorter than the delivery timeout so the answer always fits in the route's time. */
export const TEST_SEND_TIMEOUT_MS = 8_000;

export interface TestSendResult {
  event_id: string;
  event_type: EventType;
  delivery_id: string;
  delivered: boolean;
  http_status: number | null;
  response_time_ms: number;
  error: string | null;
}

/**
 * Sends an example event of `event_type` (default: the endpoint's first
 * subscribed type; any type may be tried) with `test: true`, now, and reports
 * what the endpoint answered. The send is a delivery of its own in the log
 * (`test_send: true`), attempted once and never retried: it is written
 * already claimed with its attempt id, then its outcome is recorded in the
 * transaction that seals the answer. It spends one of the partner's manual sends first (send-budget.ts).
 */
export async function testEndpoint(
  t: Tenant,
  id: string,
  input: { event_type?: EventType } = {},
  seal: Seal<TestSendResult> = unsealed,
  now = tenantNow(t),
): Promise<TestSendResult> {
  const e = await getEndpoint(t, id);
  await spendManualSend(t, e.id);
  const type = input.event_type ?? ((e.event_types[0] ?? 'booking.confirmed') as EventType);
  const recorded = recordEvent(t.partnerId, t.env, type, exampleData(type, now), now, dataTable, { test: true, dispatched: true, example: true });
  const delivery = newDelivery(recorded.event, recorded.ref, e, now);
  // Like any delivery's first attempt, the send carries the delivery's own id (X-Service-Delivery-Id = delivery_id).
  const claim: AttemptClaim = { id: delivery.id, index: 0 };
  const iso = now.toISOString();
  const started = Date.now();
  const d: DeliveryRecord = {
    ...delivery,
    test_send: true,
    attempt_log: [{ id: claim.id, number: 1, attempted_at: iso, http_status: null, response_time_ms: null, error: null, result: null }],
    last_attempt_id: claim.id,
    claimed_attempt: 1,
    // Claims are real time (a worker's lease), whatever the sandbox clock says.
    claim_until: started + ATTEMPT_CLAIM_MS,
    claimed_at: started,
    claim_id: claim.id,
  };
  for (let round = 0; ; round++) {
    const cancelled = await transact(dataTable.client, { event: recorded.item }, webhookStore.putClaimedDelivery(d, claim));
    if (!cancelled) break;
    // It met another change on the shard of the endpoint's count it picked: tried again on another.
    if (!cancelled.conflict || round >= COUNT_RETRIES) throw new Error(`test send was cancelled (${cancelled.codes.join(', ')})`);
    await backoff(round, 10, COUNT_BACKOFF_CAP_MS);
  }
  const r = await sendAttempt(
    {
      url: e.url,
      ...signingSecrets(e),
      body: envelopeBytes(recorded.event),
      eventId: recorded.event.id,
      eventType: type,
      deliveryId: claim.id,
      attempt: 1,
    },
    TEST_SEND_TIMEOUT_MS,
  );
  // On the tenant's clock: `now` plus the real time the send took.
  const at = new Date(now.getTime() + (Date.now() - started)).toISOString();
  const outcome: AttemptOutcome = {
    status: r.delivered ? 'DELIVERED' : 'FAILED',
    http_status: r.http_status,
    error: r.error,
    response_time_ms: r.response_time_ms,
    at,
    next_attempt_at: null,
    delivered: r.delivered,
    response: r.response,
  };
  const result: TestSendResult = {
    event_id: recorded.event.id,
    event_type: type,
    delivery_id: d.id,
    delivered: r.delivered,
    http_status: r.http_status,
    response_time_ms: r.response_time_ms,
    error: r.error,
  };
  await webhookStore.recordAttempt(d, 1, claim, outcome, seal.items(result));
  if (r.http_status !== null) await webhookStore.recordEndpointStatus(t.partnerId, t.env, id, { http_status: r.http_status, error: r.error, at });
  return result;
}
