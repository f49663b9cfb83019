import { randomUUID } from 'node:crypto';
import { tenantTime } from '../clock/store';
import { backoff } from '../db/retry';
import { eventStore } from '../events/store';
import type { EventEnvelope } from '../events/types';
import { logger } from '../kernel/logger';
import { recordWebhookAttempt } from '../kernel/metrics';
import type { Env } from '../kernel/tenant';
import { envelopeBytes } from './deliveries';
import { judgeFailingEndpoint } from './health';
import type { DeliveryRecord, EndpointRecord } from './model';
import { deferAttempt, enqueue, queueSettings, scheduleAttempt, sendDeadLetter } from './queue';
import { resendOnce } from './replay';
import { signingSecrets } from './rotation';
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

/**
 * How long before its next attempt is due `now` is, on the delivery's clock (a sandbox's due times are on its
 * sandbox clock, which is never behind real time); 0 when it is due.
 */
async function earlyBy(d: DeliveryRecord, now: Date): Promise<number> {
  const due = Date.parse(d.next_attempt_at ?? '');
  if (!(due > now.getTime())) return 0;
  const clock = d.env === 'test' ? await tenantTime(d.partner_id, d.env, now) : now;
  return Math.max(0, due - clock.getTime());
}

/**
 * Claims attempt `attempt` of a delivery if it is still due; retries a claim
 * that met a concurrent transaction. A first attempt never claimed before (the
 * usual case) takes one conditional write and no read: a delivery is due when
 * it is made. A later one received before its due time (Scheduler fires within
 * the minute of its schedule) is not claimed: `early` says by how much.
 */
async function claim(deliveryId: string, attempt: number, now: Date): Promise<{ d: DeliveryRecord; claim: AttemptClaim } | { early: number } | undefined> {
  if (attempt === 1) {
    const d = await webhookStore.claimFirst(deliveryId, now, ATTEMPT_CLAIM_MS);
    if (d) return { d, claim: { id: d.id, index: 0 } };
  }
  const id = randomUUID();
  for (let i = 0; ; i++) {
    const d = await webhookStore.getDelivery(deliveryId);
    if (d?.status !== 'PENDING' || d.attempts !== attempt - 1) return undefined;
    const early = await earlyBy(d, now);
    if (early > 0) return { early };
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
 * attempt or dead-letters the delivery. Received before it is due, it is put
 * back on the queue for when it is, and not sent.
 */
export async function runAttempt(deliveryId: string, attempt: number, now = new Date(), batch?: AttemptBatch): Promise<'sent' | 'skipped' | 'deferred'> {
  const claimed = await claim(deliveryId, attempt, now);
  if (!claimed) return 'skipped';
  if ('early' in claimed) {
    await deferAttempt(deliveryId, attempt, claimed.early);
    logger.info('webhook attempt deferred: not due yet', { delivery_id: deliveryId, attempt, early_ms: claimed.early });
    return 'deferred';
  }
  const { d } = claimed;
  const [event, endpoint] = await Promise.all([
    d.event ?? eventStore.get(d.event_ref).then((r) => r?.event),
    batch ? batch.endpoint(d) : webhookStore.getEndpoint(d.partner_id, d.env, d.endpoint_id),
  ]);
  const refused = unusable(d, event, endpoint);
  const result: AttemptResult = refused
    ? { delivered: false, http_status: null, error: refused.error, response_time_ms: 0 }
    : await sendAttempt({
        url: endpoint!.url,
        ...signingSecrets(endpoint!),
        body: envelopeBytes(event!),
        eventId: event!.id,
        eventType: event!.type,
        deliveryId: claimed.claim.id,
        attempt,
      });
  const finished = new Date();
  // A sandbox attempt happens at its sandbox clock's time (an advance plays the retries due on the way).
  const clock = await tenantTime(d.partner_id, d.env, finished);
  const at = clock.toISOString();
  const final = result.delivered || attempt >= MAX_ATTEMPTS || refused?.final === true;
  // Only live dead letters go to the DLQ, whose alarm pages the on-call: a sandbox receiver is a partner's
  // test endpoint. Sandbox dead letters stay in the delivery log (dead_lettered_at) and the metrics.
  if (final && !result.delivered && !d.test_send && d.env === 'live') {
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
  let next = !final && delay !== undefined ? new Date(clock.getTime() + delay) : null;
  let outcome: AttemptOutcome = {
    status: result.delivered ? 'DELIVERED' : final ? 'FAILED' : 'PENDING',
    http_status: result.http_status,
    error: result.error,
    response_time_ms: result.response_time_ms,
    at,
    next_attempt_at: next?.toISOString() ?? null,
    delivered: result.delivered,
    response: result.response,
    ...(d.env === 'live'
      ? {}
      : {
          attempted_at: new Date(clock.getTime() - result.response_time_ms).toISOString(),
          ...(next ? { sweep_at: new Date(finished.getTime() + (next.getTime() - clock.getTime())).toISOString() } : {}),
        }),
  };
  // A recover asked, while this attempt was in flight, for the next one at once: a failure's next attempt is due
  // now rather than after its wait, and a last attempt's event is re-sent, as that recover would have done.
  const recovered = (await webhookStore.recordAttempt(d, attempt, claimed.claim, outcome, [], true)) === 'recover';
  if (recovered) {
    if (next) {
      next = clock;
      outcome = { ...outcome, next_attempt_at: at, ...(outcome.sweep_at ? { sweep_at: finished.toISOString() } : {}) };
    }
    await webhookStore.recordAttempt(d, attempt, claimed.claim, outcome);
    if (outcome.status === 'FAILED' && !refused) await resendAfterRecover(d, clock);
  }
  // Figures and the log line once the outcome is recorded (a retried claim would otherwise count twice).
  const dispatchDelayMs = result.delivered && event ? clock.getTime() - Date.parse(event.created_at) : undefined;
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
  if (endpoint && !refused) {
    const answer = {
      partner_id: d.partner_id,
      env: d.env,
      endpoint_id: d.endpoint_id,
      http_status: result.http_status,
      error: result.error,
      delivered: result.delivered,
      at,
    };
    if (batch) batch.answered(answer);
    else await writeEndpointStatus(answer);
  }
  // The schedule fires after the wait in real time; an advance of the sandbox clock may attempt it sooner.
  if (next && recovered) await enqueue([{ kind: 'attempt', delivery_id: d.id, attempt: attempt + 1 }]);
  else if (next) await scheduleAttempt(d.id, attempt + 1, new Date(outcome.sweep_at ?? next));
  return 'sent';
}

/** Best effort: a re-send that fails here is left to the next recover, which finds the delivery FAILED and not re-sent. */
async function resendAfterRecover(d: DeliveryRecord, now: Date): Promise<void> {
  try {
    await resendOnce(d, now);
  } catch (e) {
    logger.warn('webhook re-send after a recover failed', { delivery_id: d.id, endpoint_id: d.endpoint_id, error: (e as Error).message });
  }
}

interface EndpointAnswer {
  partner_id: string;
  env: Env;
  endpoint_id: string;
  http_status: number | null;
  error: string | null;
  delivered: boolean;
  at: string;
}

/**
 * Best effort: the delivery log holds every answer, the endpoint only shows the last one. After a
 * failure, the endpoint's failure streak is judged (a warning, or auto-disable).
 */
const writeEndpointStatus = async (a: EndpointAnswer) => {
  try {
    const endpoint = await webhookStore.recordEndpointStatus(a.partner_id, a.env, a.endpoint_id, a);
    if (endpoint && !a.delivered) await judgeFailingEndpoint(endpoint, new Date(a.at));
  } catch (e) {
    logger.warn('endpoint status not recorded', { partner_id: a.partner_id, endpoint_id: a.endpoint_id, error: (e as Error).message });
  }
};

/**
 * What the attempts of one queue batch share. The endpoints are read once per
 * batch (consistently, after the first claim that needs each), not once per
 * attempt; and the last answer of each endpoint is written once when the batch
 * is over, not once per attempt: a burst to one endpoint would otherwise read
 * and write its item for every event.
 */
export class AttemptBatch {
  private readonly endpoints = new Map<string, Promise<EndpointRecord | undefined>>();
  private readonly latest = new Map<string, EndpointAnswer>();

  endpoint(d: Pick<DeliveryRecord, 'partner_id' | 'env' | 'endpoint_id'>): Promise<EndpointRecord | undefined> {
    const key = `${d.partner_id}|${d.env}|${d.endpoint_id}`;
    let read = this.endpoints.get(key);
    if (!read) {
      read = webhookStore.getEndpoint(d.partner_id, d.env, d.endpoint_id);
      // A failed read is not shared: the next attempt reads again.
      read.catch(() => this.endpoints.delete(key));
      this.endpoints.set(key, read);
    }
    return read;
  }

  answered(a: EndpointAnswer): void {
    const key = `${a.partner_id}|${a.env}|${a.endpoint_id}`;
    const seen = this.latest.get(key);
    if (!seen || seen.at <= a.at) this.latest.set(key, a);
  }

  /** Writes the last answer of each endpoint. */
  async flush(): Promise<void> {
    const answers = [...this.latest.values()];
    this.latest.clear();
    await Promise.all(answers.map(writeEndpointStatus));
  }
}
