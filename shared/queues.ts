import { PARTNER_LEADING_KEYS } from './access/keys';
import type { BucketAccess } from './buckets';
import { jobLeadingKeys } from './jobs/keys';

/**
 * SQS queues and their consumers: used by the CDK (queue, DLQ, event source
 * mapping with partial batch failures) and by the local runtime (queue
 * creation on the SQS server, poller invoking the same handler).
 */
export interface QueueDef {
  name: string;
  envVar: string;
  /** Consumer handler entry, relative to the repository root. */
  consumer: string;
  batchSize: number;
  /** Consumer Lambda timeout; the local runtime gives its invocations the same. */
  consumerTimeoutSeconds: number;
  /**
   * VISIBILITY_PER_TIMEOUT x the consumer's timeout (`queue()` sets it). It is also the wait before a failed
   * message (a batch item failure, a timeout) is received again.
   */
  visibilityTimeoutSeconds: number;
  /** Receives after which a message moves to the DLQ. */
  maxReceiveCount: number;
  /**
   * At most this many consumer invocations at once in AWS (the event source mapping's maximum concurrency, 2 to
   * 1 000), so that a burst on the queue leaves the account's concurrency to the API. Messages beyond it wait on
   * the queue: no throttle, no receive counted.
   */
  maxConcurrency: number;
  /** Concurrent consumer invocations in the local runtime (at most `maxConcurrency`). */
  localConcurrency?: number;
  consumerMemoryMb?: number;
  /** The consumer issues invoices: its bundle carries the fonts, its environment the issuer's identity (infra/issuer.ts). */
  rendersPdf?: boolean;
  /** Buckets of shared/buckets.ts the consumer reads or writes. */
  buckets?: Record<string, BucketAccess>;
  /** Native packages the consumer loads (sharp): installed beside its bundle for the Lambda platform (ServiceFunction `nodeModules`). */
  nodeModules?: string[];
  /** The consumer sends e-mail through SES (infra/mail.ts: the deployment's sender). */
  sendsMail?: boolean;
  /** The consumer's access to the data table: read and write (the default), or none. */
  dataTable?: 'readwrite' | 'none';
}

/**
 * Lambda's guidance for an SQS event source: a visibility timeout of at least six times the function's timeout,
 * so that messages held while Lambda retries a throttled invocation are not received a second time meanwhile.
 */
export const VISIBILITY_PER_TIMEOUT = 6;

/** A queue whose visibility timeout follows its consumer's timeout. */
const queue = (def: Omit<QueueDef, 'visibilityTimeoutSeconds'>): QueueDef => ({
  ...def,
  visibilityTimeoutSeconds: VISIBILITY_PER_TIMEOUT * def.consumerTimeoutSeconds,
});

export const QUEUES: Record<string, QueueDef> = {
  webhooks: queue({
    name: 'webhooks',
    envVar: 'WEBHOOK_QUEUE_URL',
    consumer: 'functions/webhooks/worker.ts',
    batchSize: 10,
    // Each attempt of the batch has 10 s (DELIVERY_TIMEOUT_MS), all at once; a failed message is received again
    // after 6 min, which the sweeper (every 5 min, overdue by 2) often does first. Retry waits go through the Scheduler.
    consumerTimeoutSeconds: 60,
    maxReceiveCount: 5,
    // 100 messages in flight: a 5 000-delivery recover to a healthy receiver drains in about a minute.
    maxConcurrency: 10,
    localConcurrency: 8,
    // A failing endpoint's team is e-mailed.
    sendsMail: true,
  }),
  settlements: queue({
    name: 'settlements',
    envVar: 'SETTLEMENT_QUEUE_URL',
    consumer: 'functions/settlements/worker.ts',
    // One tenant per invocation: a large settlement renders for a while, and one tenant's failure retries alone.
    batchSize: 1,
    consumerTimeoutSeconds: 900,
    maxReceiveCount: 5,
    // The monthly fan-out (one message per partner and environment) issues two tenants at a time: the least allowed.
    maxConcurrency: 2,
    localConcurrency: 2,
    consumerMemoryMb: 1536,
    rendersPdf: true,
  }),
  uploads: queue({
    name: 'uploads',
    envVar: 'UPLOAD_QUEUE_URL',
    // S3 ObjectCreated notifications of the review-photo bucket (pending/, photos/): the validator checks and re-encodes each upload.
    consumer: 'functions/files/validator.ts',
    batchSize: 10,
    consumerTimeoutSeconds: 50,
    maxReceiveCount: 5,
    // Photos arrive one upload at a time; 5 invocations of 1.5 GB check 50 at once.
    maxConcurrency: 5,
    localConcurrency: 1,
    // sharp decodes photos of up to 100 megapixels (PHOTO_MAX_INPUT_PIXELS), and Lambda's CPU grows with its memory.
    consumerMemoryMb: 1536,
    buckets: { reviewPhotos: 'manage' },
    nodeModules: ['sharp'],
  }),
  clock: queue({
    name: 'clock',
    envVar: 'CLOCK_QUEUE_URL',
    // Sandbox clock advances (POST /test-helpers/clock/advance): one message plays one partner's advance to its end.
    consumer: 'functions/clock/worker.ts',
    batchSize: 1,
    // An advance waits for each instant's webhooks to be answered (10 s each at most): a long one takes minutes.
    consumerTimeoutSeconds: 900,
    maxReceiveCount: 5,
    maxConcurrency: 2,
    localConcurrency: 2,
    consumerMemoryMb: 1024,
    // The 1st of a month issues the sandbox's settlement, its PDF and CSV; a failing endpoint's team is e-mailed.
    rendersPdf: true,
    sendsMail: true,
    buckets: { settlementDocuments: 'write-multipart' },
  }),
  mail: queue({
    name: 'mail',
    envVar: 'MAIL_QUEUE_URL',
    // E-mails SES refused when they were first sent (shared/mail/deliver.ts): tried again every 5 minutes for
    // half an hour, then dead-lettered (alarmed), to be redriven once SES sends again.
    consumer: 'functions/mail/worker.ts',
    batchSize: 10,
    // 6 x 50 s: a refused e-mail is received again after 5 minutes.
    consumerTimeoutSeconds: 50,
    maxReceiveCount: 6,
    // SES's sending rate is the limit, not Lambda's: two invocations are plenty.
    maxConcurrency: 2,
    localConcurrency: 1,
    sendsMail: true,
    dataTable: 'none',
  }),
};

/** Scheduled jobs (EventBridge cron in AWS, the local cron runner locally). */
export interface JobDef {
  id: string;
  /** EventBridge cron expression, UTC: cron(minutes hours day-of-month month day-of-week year). */
  schedule: string;
  handler: string;
  description: string;
  /**
   * Minutes after its scheduled time by which a run must have succeeded, else the
   * job watchdog reports it overdue (JobOverdue, alarmed). Default 60.
   */
  graceMinutes?: number;
  /** Queues of QUEUES the job sends to: `webhooks` for a job that records events (their fan-out) or re-drives deliveries. */
  sendsTo?: string[];
  /** The data table: read and write, or none (the default). */
  dataTable?: 'readwrite' | 'none';
  /**
   * Access-table items the job may write besides its own run record (JOB#<id>), as dynamodb:LeadingKeys patterns
   * (from the features' keys.ts). It may read the whole access table (the partners' list).
   */
  accessWrites?: string[];
  /** Buckets of shared/buckets.ts the job reads or writes. */
  buckets?: Record<string, BucketAccess>;
}

export const JOBS: JobDef[] = [
  {
    id: 'refreshSandboxCatalogs',
    schedule: 'cron(0 3 ? * SUN *)',
    handler: 'functions/jobs/refresh-sandbox.ts',
    description: "Weekly refresh of every tenant's sandbox catalog from production (Sunday 03:00 UTC)",
    // Each partner's sandbox catalog pointer (its PARTNER# item) moves to the new snapshot; withdrawn adventures are events.
    accessWrites: PARTNER_LEADING_KEYS,
    dataTable: 'readwrite',
    sendsTo: ['webhooks'],
  },
  {
    id: 'webhookSweeper',
    schedule: 'cron(0/5 * * * ? *)',
    handler: 'functions/jobs/webhook-sweeper.ts',
    description:
      'Every 5 minutes: re-drives events not fanned out and webhook deliveries whose attempt is overdue, and resumes sandbox clock advances idle for 2 minutes',
    // Three missed runs: a single failed run is retried by Lambda and re-driven by the next one.
    graceMinutes: 15,
    dataTable: 'readwrite',
    sendsTo: ['webhooks', 'clock'],
  },
  {
    id: 'completeBookings',
    schedule: 'cron(30 0 * * ? *)',
    handler: 'functions/jobs/complete-bookings.ts',
    description: 'Daily 00:30 UTC: bookings whose travel date has passed become COMPLETED (booking.completed)',
    dataTable: 'readwrite',
    sendsTo: ['webhooks'],
  },
  {
    id: 'jobWatchdog',
    schedule: 'cron(0/15 * * * ? *)',
    handler: 'functions/jobs/watchdog.ts',
    description: 'Every 15 minutes: checks that every job succeeded since its last scheduled time (the JobOverdue metric the job alarms watch)',
    graceMinutes: 30,
    // It reads and marks every job's run record (first sightings), and nothing else.
    accessWrites: jobLeadingKeys.all,
  },
  {
    id: 'issueSettlements',
    // 01:30 UTC is 02:30 or 01:30 in Morocco (UTC+1 or UTC+0, depending on the season and the tz database): the month has ended there either way.
    schedule: 'cron(30 1 1 * ? *)',
    handler: 'functions/jobs/issue-settlements.ts',
    description: "Monthly, the 1st at 01:30 UTC: one settlement-queue message per partner and environment issues the previous months' DRAFTs",
    // It reads the partners' list and enqueues one message per tenant: the consumer does the rest.
    sendsTo: ['settlements'],
  },
  {
    id: 'sweepFiles',
    schedule: 'cron(15 * * * ? *)',
    handler: 'functions/jobs/sweep-files.ts',
    description: 'Hourly: uploaded files never attached to a review (or rejected) are deleted, records and objects, once they expire',
    buckets: { reviewPhotos: 'manage' },
    dataTable: 'readwrite',
  },
];
