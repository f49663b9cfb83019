import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger, SERVICE_NAME } from './logger';
import type { Env } from './tenant';

/**
 * The service's figures, as CloudWatch EMF through Powertools Metrics. Every
 * metric is named here once, with its unit and its dimensions, and the CDK
 * builds the alarms and the dashboard from this catalogue. Dimensions stay
 * low-cardinality (route, environment live/test, job, refusal reason): a
 * partner id, key id or request id never becomes a dimension; those go in the
 * log line (and the request id in the document's metadata).
 *
 * Every figure is written as one EMF document at once (Powertools'
 * publishStoredMetrics, synchronously), so nothing is lost when an invocation
 * fails later, and no two invocations can mix their dimensions. In Lambda the
 * document goes to the function's log stream, where CloudWatch turns it into
 * metrics; the local runtime keeps it in its log file under .local/, where
 * `npm run -s admin -- metrics:summary` reads it back.
 */
export const METRICS_NAMESPACE = 'PartnerTravel';

export type Dimension = 'route' | 'environment' | 'reason' | 'job';

interface MetricDef {
  unit: (typeof MetricUnit)[keyof typeof MetricUnit];
  /** Dimensions besides `service`. */
  dimensions: readonly Dimension[];
  /** Also published with `service` alone, as the service-wide total. */
  total?: boolean;
  description: string;
}

const count = MetricUnit.Count;
const ms = MetricUnit.Milliseconds;

export const METRICS = {
  // Per route, one document per request, written by the HTTP stack.
  Requests: { unit: count, dimensions: ['route'], total: true, description: 'requests answered by the route (Sum)' },
  Latency: { unit: ms, dimensions: ['route'], total: true, description: 'handler time, first middleware to answer (p50, p99)' },
  Error4xx: { unit: count, dimensions: ['route'], total: true, description: '1 for a 4xx answer, else 0 (Sum: count, Average: rate)' },
  Error5xx: { unit: count, dimensions: ['route'], total: true, description: '1 for a 5xx answer, else 0 (Sum: count, Average: rate)' },
  // Refusals of the platform.
  AuthFailures: { unit: count, dimensions: ['reason'], total: true, description: 'failed authentications (401), reason = error code' },
  RateLimitRefusals: { unit: count, dimensions: [], description: '429 rate_limit.exceeded answers' },
  // Domain counters, per environment (live/test).
  QuotesCreated: { unit: count, dimensions: ['environment'], description: 'quotes created' },
  BookingsConfirmed: { unit: count, dimensions: ['environment'], description: 'bookings confirmed' },
  BookingsRefused: { unit: count, dimensions: ['environment'], description: 'booking attempts refused by a domain rule (expired quote, payment, seats...)' },
  BookingsCancelled: { unit: count, dimensions: ['environment'], description: 'bookings cancelled (by the partner or the service)' },
  BookingsCompleted: { unit: count, dimensions: ['environment'], description: 'bookings completed by the daily job' },
  SettlementsIssued: { unit: count, dimensions: ['environment'], description: 'settlements issued' },
  SettlementsPaid: { unit: count, dimensions: ['environment'], description: 'settlements marked paid' },
  ReviewsCreated: { unit: count, dimensions: ['environment'], description: 'reviews created' },
  ReviewsModerated: { unit: count, dimensions: ['environment'], description: 'reviews moderated' },
  FilesRejected: { unit: count, dimensions: ['environment'], description: 'uploaded files rejected' },
  // Webhook delivery, per environment.
  WebhookAttempts: { unit: count, dimensions: ['environment'], description: 'delivery attempts sent (or refused before sending)' },
  WebhookAttemptFailures: { unit: count, dimensions: ['environment'], description: '1 for an attempt without a 2xx, else 0' },
  WebhookDeliveriesClosed: { unit: count, dimensions: ['environment'], description: 'deliveries that ended, DELIVERED or FAILED' },
  WebhookDeadLetters: {
    unit: count,
    dimensions: ['environment'],
    description: '1 for a delivery that ended FAILED (dead-lettered), else 0, per closed delivery',
  },
  WebhookDispatchDelay: { unit: ms, dimensions: ['environment'], description: 'from the event being recorded to its delivery (2xx)' },
  // Storage.
  MultipartAbortFailures: {
    unit: count,
    dimensions: [],
    description: 'multipart uploads that a failed write could not abort: their parts stay billed until the bucket lifecycle rule aborts them (1 day)',
  },
  // E-mail through SES (shared/mail): each SendEmail the service makes, the queued retries included.
  MailsSent: { unit: count, dimensions: [], description: 'e-mails SES accepted' },
  MailFailures: { unit: count, dimensions: ['reason'], total: true, description: "e-mails SES refused or did not answer in time, reason = SES's error name" },
  // Scheduled jobs.
  JobRuns: { unit: count, dimensions: ['job'], description: 'job runs that ended (success or failure)' },
  JobFailures: { unit: count, dimensions: ['job'], description: '1 for a failed run, else 0' },
  JobDuration: { unit: ms, dimensions: ['job'], description: 'run time of the job' },
  JobOverdue: {
    unit: count,
    dimensions: ['job'],
    description: '1 while a job has no successful run since its last scheduled time (plus grace), else 0; written by the job watchdog',
  },
  // The runtime (shared/kernel/tz-check.ts).
  TzDataMismatch: {
    unit: count,
    dimensions: [],
    description:
      "1 when the runtime's time-zone data (Intl) gives Morocco other offsets than the service's bundled IANA rules, else 0; once a process computed Morocco's time, then hourly",
  },
} as const satisfies Record<string, MetricDef>;

export type MetricName = keyof typeof METRICS;
export type DomainCounter = {
  [K in MetricName]: (typeof METRICS)[K]['dimensions'] extends readonly ['environment'] ? (K extends `Webhook${string}` ? never : K) : never;
}[MetricName];

const emitter = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME, logger });

/**
 * Writes one EMF document: the figures, under the given dimension values (plus
 * `service`), and under `service` alone for the metrics that keep a total.
 * Synchronous from the first call to the publish, so it cannot interleave.
 */
export function emit(
  dimensions: Partial<Record<Dimension, string>>,
  figures: Partial<Record<MetricName, number>>,
  metadata: Record<string, string> = {},
): void {
  const names = Object.keys(figures) as MetricName[];
  if (names.length === 0) return;
  emitter.addDimensions(dimensions as Record<string, string>);
  if (Object.keys(dimensions).length > 0 && names.every((n) => 'total' in METRICS[n])) emitter.addDimensions({});
  for (const [k, v] of Object.entries(metadata)) emitter.addMetadata(k, v);
  for (const n of names) emitter.addMetric(n, METRICS[n].unit, figures[n]!);
  emitter.publishStoredMetrics();
}

/** A domain counter (quotes created, bookings confirmed ...), per environment. */
export function countEvent(name: DomainCounter, environment: Env, n = 1): void {
  emit({ environment }, { [name]: n });
}

/** Status class, count and latency of one answered request. */
export function recordRequest(route: string, status: number, latencyMs: number, requestId: string): void {
  emit(
    { route },
    { Requests: 1, Latency: latencyMs, Error4xx: status >= 400 && status < 500 ? 1 : 0, Error5xx: status >= 500 ? 1 : 0 },
    { request_id: requestId, status_class: `${Math.floor(status / 100)}xx` },
  );
}

/** A refusal by the platform: failed authentication (auth.*, 401) or rate limit (429). Other codes are not counted here. */
export function recordRefusal(code: string, status: number): void {
  if (code === 'rate_limit.exceeded') emit({}, { RateLimitRefusals: 1 });
  else if (status === 401 && code.startsWith('auth.')) emit({ reason: code }, { AuthFailures: 1 });
}

export interface AttemptFigures {
  delivered: boolean;
  /** The delivery ended with this attempt (delivered, out of attempts, or its endpoint gone). */
  closed: boolean;
  /** From the event's record to this successful attempt. */
  dispatchDelayMs?: number;
}

/** One webhook attempt: attempts, failures, closed deliveries, dead letters and dispatch delay. */
export function recordWebhookAttempt(environment: Env, a: AttemptFigures): void {
  emit(
    { environment },
    {
      WebhookAttempts: 1,
      WebhookAttemptFailures: a.delivered ? 0 : 1,
      ...(a.closed ? { WebhookDeliveriesClosed: 1, WebhookDeadLetters: a.delivered ? 0 : 1 } : {}),
      ...(a.dispatchDelayMs !== undefined ? { WebhookDispatchDelay: a.dispatchDelayMs } : {}),
    },
  );
}

/** A multipart upload left behind: the write failed and so did its abort. */
export function recordMultipartAbortFailure(): void {
  emit({}, { MultipartAbortFailures: 1 });
}

/** One SendEmail: accepted, or refused with SES's error name (MessageRejected, SendingPausedException, ...). */
export function recordMail(refusal?: string): void {
  if (refusal === undefined) emit({}, { MailsSent: 1 });
  else emit({ reason: refusal }, { MailFailures: 1 });
}

export function recordJobRun(job: string, ok: boolean, durationMs: number): void {
  emit({ job }, { JobRuns: 1, JobFailures: ok ? 0 : 1, JobDuration: durationMs });
}

export function recordJobOverdue(job: string, overdue: boolean): void {
  emit({ job }, { JobOverdue: overdue ? 1 : 0 });
}
