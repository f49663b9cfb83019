/**
 * The retry schedule: after a failed attempt, wait 5 min, 15 min, 1 h, 6 h,
 * then 24 h; after the 6th attempt the delivery is FAILED and dead-lettered.
 */
export const RETRY_WAITS_SECONDS = [300, 900, 3600, 21_600, 86_400];
export const MAX_ATTEMPTS = RETRY_WAITS_SECONDS.length + 1;

/** The wait after failed attempt n (1-based) before attempt n + 1; undefined after the last one. */
export function retryDelayMs(failedAttempt: number, scale = 1): number | undefined {
  const wait = RETRY_WAITS_SECONDS[failedAttempt - 1];
  return wait === undefined ? undefined : wait * 1000 * scale;
}

/** Longer than the worker's timeout: a claim older than this was left by a worker that died. */
export const ATTEMPT_CLAIM_MS = 120_000;

/**
 * The EventBridge Scheduler group of the one-time retry schedules in the local runtime. In AWS each stack has its
 * own, named after the stack (retryScheduleGroupName in infra/constructs/webhooks.ts); the worker reads either
 * from SCHEDULER_GROUP.
 */
export const LOCAL_RETRY_SCHEDULE_GROUP = 'webhook-retries';
