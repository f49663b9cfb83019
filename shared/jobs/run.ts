import type { ScheduledEvent } from 'aws-lambda';
import { instrumented } from '../kernel/instrument';
import { logger } from '../kernel/logger';
import { recordJobRun } from '../kernel/metrics';
import { jobStore } from './store';

const describe = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/**
 * The handler of a scheduled job (shared/queues.ts JOBS): instrumented like
 * every function, it records the run (start, success or failure, in the job's
 * run record that the watchdog reads), emits JobRuns, JobFailures and
 * JobDuration, logs the outcome, and rethrows a failure so that Lambda counts
 * the error and retries the run (EventBridge invokes it asynchronously: twice more,
 * then the job's on-failure queue; shared/async-invocations.ts).
 */
export function jobHandler<R>(jobId: string, run: (scheduledAt: Date) => Promise<R>) {
  return instrumented(`job ${jobId}`, async (event: Pick<ScheduledEvent, 'time'>) => {
    const scheduledAt = new Date(event.time ?? Date.now());
    logger.appendKeys({ job: jobId, scheduled_at: scheduledAt.toISOString() });
    const started = Date.now();
    await jobStore.started(jobId, scheduledAt, new Date()).catch((e) => logger.warn('job start not recorded', { error: describe(e) }));
    try {
      const result = await run(scheduledAt);
      const durationMs = Date.now() - started;
      recordJobRun(jobId, true, durationMs);
      logger.info('job done', { duration_ms: durationMs, result });
      // The work is done: a failed bookkeeping write is logged (the watchdog will say the job is overdue), not turned into a failed run.
      await jobStore
        .succeeded(jobId, scheduledAt.toISOString(), durationMs, new Date())
        .catch((e) => logger.error('job success not recorded', { error: describe(e) }));
      return result;
    } catch (e) {
      const durationMs = Date.now() - started;
      recordJobRun(jobId, false, durationMs);
      logger.error('job failed', { duration_ms: durationMs, error: describe(e) });
      await jobStore.failed(jobId, describe(e), new Date()).catch(() => undefined);
      throw e;
    }
  });
}
