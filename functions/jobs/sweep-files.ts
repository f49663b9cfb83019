import { sweepFiles } from '../../shared/files/sweep';
import { jobHandler } from '../../shared/jobs/run';
import { logger } from '../../shared/kernel/logger';

/** Hourly: deletes expired unattached uploads (records and objects). */
export const handler = jobHandler('sweepFiles', async () => {
  const r = await sweepFiles();
  if (r.deleted) logger.info('expired files deleted', r);
  return r;
});
