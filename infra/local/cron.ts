import { randomUUID } from 'node:crypto';
import { parseCron } from '../../shared/kernel/cron';
import type { JobDef } from '../../shared/queues';
import type { AsyncInvoker } from './async-invoke';

/** EventBridge's scheduled event, as the rule delivers it to the job's Lambda. */
export function scheduledEvent(job: JobDef, time: Date) {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'us-east-1',
    resources: [`arn:aws:events:us-east-1:123456789012:rule/${job.id}`],
    detail: {},
  };
}

/**
 * Runs one job as its rule would: EventBridge hands the scheduled event to Lambda's asynchronous invocation
 * (`invoker`: retried twice, then the job's on-failure queue) and does not wait for it. Quiet by default: a job
 * that runs and succeeds prints nothing (the sweeper runs every 5 minutes); its start and end are printed
 * only when `verbose` (LOG_LEVEL INFO or DEBUG). A failure is always printed (by the invoker, each attempt).
 * The promise tells how the invocation ended, retries included.
 */
export async function runJob(job: JobDef, at: Date, invoker: AsyncInvoker, log: (line: string) => void, verbose = false): Promise<void> {
  if (verbose) log(`[cron] ${job.id} starts (${job.schedule})`);
  const outcome = await invoker.invoke(job.handler, scheduledEvent(job, at), { name: job.id, timeoutMs: 900_000 });
  if (verbose && outcome.status === 'succeeded') log(`[cron] ${job.id} done`);
}

/** Whether a log level shows the job runner's start and end lines. */
export const verboseLevel = (level: string | undefined) => ['DEBUG', 'INFO', 'TRACE'].includes((level ?? '').toUpperCase());

/** Ticks at every UTC minute and runs the jobs whose cron matches; the invoker's stop waits for the runs under way. */
export function startCron(jobs: JobDef[], invoker: AsyncInvoker, log: (line: string) => void, verbose = false) {
  const matchers = jobs.map((j) => ({ job: j, cron: parseCron(j.schedule) }));
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    const now = Date.now();
    timer = setTimeout(tick, 60_000 - (now % 60_000) + 50);
  };
  const tick = () => {
    const t = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    for (const { job, cron } of matchers) {
      if (cron.matches(t)) void runJob(job, t, invoker, log, verbose);
    }
    schedule();
  };
  schedule();
  return {
    stop: async () => {
      if (timer) clearTimeout(timer);
    },
  };
}
