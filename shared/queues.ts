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
  visibilityTimeoutSeconds: number;
  /** Receives after which a message moves to the DLQ. */
  maxReceiveCount: number;
  /** Concurrent consumer invocations in the local runtime (Lambda scales them in AWS). */
  localConcurrency?: number;
}

export const QUEUES: Record<string, QueueDef> = {
  webhooks: {
    name: 'webhooks',
    envVar: 'WEBHOOK_QUEUE_URL',
    consumer: 'functions/webhooks/worker.ts',
    batchSize: 10,
    visibilityTimeoutSeconds: 90,
    maxReceiveCount: 5,
    localConcurrency: 4,
  },
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
}

export const JOBS: JobDef[] = [
  {
    id: 'refreshSandboxCatalogs',
    schedule: 'cron(0 3 ? * SUN *)',
    handler: 'functions/jobs/refresh-sandbox.ts',
    description: "Weekly refresh of every tenant's sandbox catalog from production (Sunday 03:00 UTC)",
  },
  {
    id: 'webhookSweeper',
    schedule: 'cron(0/5 * * * ? *)',
    handler: 'functions/jobs/webhook-sweeper.ts',
    description: 'Every 5 minutes: re-drives events not fanned out and webhook deliveries whose attempt is overdue',
    // Three missed runs: a single failed run is retried by EventBridge and re-driven by the next one.
    graceMinutes: 15,
  },
  {
    id: 'completeBookings',
    schedule: 'cron(30 0 * * ? *)',
    handler: 'functions/jobs/complete-bookings.ts',
    description: 'Daily 00:30 UTC: bookings whose travel date has passed become COMPLETED (booking.completed)',
  },
  {
    id: 'jobWatchdog',
    schedule: 'cron(0/15 * * * ? *)',
    handler: 'functions/jobs/watchdog.ts',
    description: 'Every 15 minutes: checks that every job succeeded since its last scheduled time (the JobOverdue metric the job alarms watch)',
    graceMinutes: 30,
  },
];
