import { parseCron, previousFire } from '../kernel/cron';
import { logger } from '../kernel/logger';
import { recordJobOverdue } from '../kernel/metrics';
import { JOBS, type JobDef } from '../queues';
import { type JobRunRecord, jobStore } from './store';

/** A job is late once its scheduled time plus this grace has passed without a successful run. */
export const DEFAULT_GRACE_MINUTES = 60;

export interface JobCheck {
  job: string;
  schedule: string;
  overdue: boolean;
  /** The last scheduled time whose grace has passed: a successful run for it (or later) is expected. */
  due: string | null;
  last_success_scheduled_at: string | null;
  last_succeeded_at: string | null;
  last_failed_at: string | null;
  last_error: string | null;
}

/**
 * Whether a job is overdue: its last scheduled time before `now - grace` is
 * not older than its first sighting, and no successful run was scheduled at
 * or after it. Covers a job that never ran (rule disabled, target broken) as
 * well as one whose runs and retries all failed or timed out.
 */
export function checkJob(job: JobDef, rec: JobRunRecord, now: Date): JobCheck {
  const grace = (job.graceMinutes ?? DEFAULT_GRACE_MINUTES) * 60_000;
  const due = previousFire(parseCron(job.schedule), new Date(now.getTime() - grace));
  const expected = due !== undefined && due.getTime() >= Date.parse(rec.first_seen_at);
  const lastOk = rec.last_success_scheduled_at ? Date.parse(rec.last_success_scheduled_at) : Number.NEGATIVE_INFINITY;
  return {
    job: job.id,
    schedule: job.schedule,
    overdue: expected && lastOk < due!.getTime(),
    due: due?.toISOString() ?? null,
    last_success_scheduled_at: rec.last_success_scheduled_at ?? null,
    last_succeeded_at: rec.last_succeeded_at ?? null,
    last_failed_at: rec.last_failed_at ?? null,
    last_error: rec.last_error ?? null,
  };
}

/**
 * The job watchdog (itself a job of JOBS): checks every job against its
 * schedule and, with `emit`, writes JobOverdue (0 or 1) for each, which the
 * per-job "did not run" alarms watch. A job seen for the first time is
 * expected from then on.
 */
export async function checkJobs(opts: { emit: boolean; jobs?: JobDef[]; now?: Date } = { emit: true }): Promise<JobCheck[]> {
  const now = opts.now ?? new Date();
  const checks: JobCheck[] = [];
  for (const job of opts.jobs ?? JOBS) {
    const c = checkJob(job, await jobStore.seen(job.id, now), now);
    if (opts.emit) recordJobOverdue(job.id, c.overdue);
    if (c.overdue) logger.info('job overdue', { job: c.job, due: c.due, last_success_scheduled_at: c.last_success_scheduled_at, last_error: c.last_error });
    checks.push(c);
  }
  return checks;
}
