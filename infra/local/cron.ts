import { randomUUID } from 'node:crypto';
import { parseCron } from '../../shared/kernel/cron';
import type { JobDef } from '../../shared/queues';
import { invoke, lambdaContext } from './lambda';

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

/** Ticks at every UTC minute and runs the jobs whose cron matches. */
export function startCron(jobs: JobDef[], log: (line: string) => void) {
  const matchers = jobs.map((j) => ({ job: j, cron: parseCron(j.schedule) }));
  let timer: NodeJS.Timeout | undefined;
  const running = new Set<Promise<unknown>>();
  const schedule = () => {
    const now = Date.now();
    timer = setTimeout(tick, 60_000 - (now % 60_000) + 50);
  };
  const tick = () => {
    const t = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    for (const { job, cron } of matchers) {
      if (!cron.matches(t)) continue;
      log(`[cron] ${job.id} starts (${job.schedule})`);
      const p = invoke(job.handler, scheduledEvent(job, t), lambdaContext(job.id, 900_000))
        .then(() => log(`[cron] ${job.id} done`))
        .catch((e: Error) => log(`[cron] ${job.id} failed: ${e.message}`))
        .finally(() => running.delete(p));
      running.add(p);
    }
    schedule();
  };
  schedule();
  return {
    stop: async () => {
      if (timer) clearTimeout(timer);
      await Promise.allSettled([...running]);
    },
  };
}
