import { randomUUID } from 'node:crypto';
import { backoff } from '../db/retry';
import { eventStore } from '../events/store';
import type { EventEnvelope } from '../events/types';
import { logger } from '../kernel/logger';
import { recordWebhookAttempt } from '../kernel/metrics';
import { envelopeBytes } from './deliveries';
import type { DeliveryRecord, EndpointRecord } from './model';
import { queueSettings, scheduleAttempt, sendDeadLetter } from './queue';
import { ATTEMPT_CLAIM_MS, MAX_ATTEMPTS, retryDelayMs } from './schedule';
import { type AttemptResult, sendAttempt } from './sender';
import { type AttemptClaim, type AttemptOutcome, webhookStore } from './store';

/** Why a delivery cannot be attempted now, or null when it can. A deleted or disabled endpoint ends the delivery at once. */
function unusable(d: DeliveryRecord, event: EventEnvelope | undefined, endpoint: EndpointRecord | undefined): { error: string; final: boolean } | null {
  // A test send is attempted once, by its request: if that request died before recording, the attempt is not sent again.
  if (d.test_send) return { error: 'test send interrupted before its result was recorded', final: true };
  if (!endpoint) return { error: 'endpoint deleted', final: true };
  if (endpoint.status !== 'ACTIVE') return { error: 'endpoint disabled', final: true };
  if (!event) return { error: 'event missing', final: false };
  return null;
}

/** Claims attempt `attempt` of a delivery if it is still due; retries a claim that met a concurrent transaction. */
async function claim(deliveryId: string, attempt: number, now: Date): Promise<{ d: DeliveryRecord; claim: AttemptClaim } | undefined> {
  const id = randomUUID();
  for (let i = 0; ; i++) {
    const d = await webhookStore.getDelivery(deliveryId);
    if (d?.status !== 'PENDING' || d.attempts !== attempt - 1) return undefined;
    const c: AttemptClaim = { id, index: d.attempt_log?.length ?? 0 };
    const r = await webhookStore.claimAttempt(d, attempt, c, now, ATTEMPT_CLAIM_MS);
    if (r === 'claimed') return { d, claim: c };
    if (r === 'taken') return undefined;
    if (i >= 5) throw new Error(`attempt ${attempt} of delivery ${deliveryId} kept meeting concurrent transactions`);
    await backoff(i);
  }
}

/**
 * Sends attempt `attempt` of a delivery if it is still due: claims it with a
 * conditional write (same attempt number, no live claim) that also records
 * the attempt's id, posts, records the outcome, and schedules the next
 * attempt or dead-letters the delivery.
 */
export async function runAttempt(deliveryId: string, attempt: number, now = new Date()): Promise<'sent' | 'skipped'> {
  const claimed = await claim(deliveryId, attempt, now);
  if (!claimed) return 'skipped';
  const { d } = claimed;
  const [record, endpoint] = await Promise.all([eventStore.get(d.event_ref), webhookStore.getEndpoint(d.partner_id, d.env, d.endpoint_id)]);
  const event = record?.event;
  const refused = unusable(d, event, endpoint);
  const result: AttemptResult = refused
    ? { delivered: false, http_status: null, error: refused.error, response_time_ms: 0 }
    : await sendAttempt({
        url: endpoint!.url,
        secret: endpoint!.signing_secret,
        body: envelopeBytes(event!),
        eventId: event!.id,
        eventType: event!.type,
        deliveryId: claimed.claim.id,
        attempt,
      });
  const finished = new Date();
  const at = finished.toISOString();
  const final = result.delivered || attempt >= MAX_ATTEMPTS || refused?.final === true;
  if (final && !result.delivered && !d.test_send) {
    // The DLQ message goes first: if recording FAILED then fails, the claim expires and the sweeper
    // retries the attempt (a duplicate dead letter at worst), so no dead letter is ever lost.
    await sendDeadLetter({
      delivery_id: d.id,
      event_id: d.event_id,
      event_type: d.event_type,
      partner_id: d.partner_id,
      environment: d.env,
      endpoint_id: d.endpoint_id,
      attempts: attempt,
      last_error: result.error,
      last_http_status: result.http_status,
    });
  }
  const delay = retryDelayMs(attempt, queueSettings().WEBHOOK_WAIT_SCALE);
  const next = !final && delay !== undefined ? new Date(finished.getTime() + delay) : null;
  const outcome: AttemptOutcome = {
    status: result.delivered ? 'DELIVERED' : final ? 'FAILED' : 'PENDING',
    http_status: result.http_status,
    error: result.error,
    response_time_ms: result.response_time_ms,
    at,
    next_attempt_at: next?.toISOString() ?? null,
    delivered: result.delivered,
  };
  await webhookStore.recordAttempt(d, attempt, claimed.claim, outcome);
  // Figures and the log line once the outcome is recorded (a retried claim would otherwise count twice).
  const dispatchDelayMs = result.delivered && event ? finished.getTime() - Date.parse(event.created_at) : undefined;
  recordWebhookAttempt(d.env, { delivered: result.delivered, closed: final, dispatchDelayMs });
  logger.info('webhook attempt', {
    partner_id: d.partner_id,
    environment: d.env,
    delivery_id: d.id,
    endpoint_id: d.endpoint_id,
    event_type: d.event_type,
    attempt,
    outcome: outcome.status,
    http_status: result.http_status,
    error: result.error,
    response_time_ms: result.response_time_ms,
    ...(final && !result.delivered ? { dead_lettered: true } : {}),
  });
  if (endpoint && result.http_status !== null)
    await webhookStore.recordEndpointStatus(d.partner_id, d.env, d.endpoint_id, result.http_status, at).catch(() => undefined);
  if (next) await scheduleAttempt(d.id, attempt + 1, next);
  return 'sent';
}
