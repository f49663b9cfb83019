import { jobHandler } from '../../shared/jobs/run';
import { checkJobs } from '../../shared/jobs/watchdog';

/** Every 15 minutes: JobOverdue for every job of JOBS (the "did not run" alarms). */
export const handler = jobHandler('jobWatchdog', async () => {
  const checks = await checkJobs({ emit: true });
  return { checked: checks.length, overdue: checks.filter((c) => c.overdue).map((c) => c.job) };
});
