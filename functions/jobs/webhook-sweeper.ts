import { ADVANCE_STALE_MS, resumeIdleAdvances } from '../../shared/clock/advance';
import { jobHandler } from '../../shared/jobs/run';
import { logger } from '../../shared/kernel/logger';
import { sweep } from '../../shared/webhooks/sweep';

/**
 * Every 5 minutes: re-drives events not fanned out and deliveries whose attempt is overdue, and resumes the
 * sandbox clock advances idle for 2 minutes (a worker that died leaves its message invisible for 90 minutes).
 * Logged only when there were some.
 */
export const handler = jobHandler('webhookSweeper', async () => {
  const r = await sweep();
  const advances = await resumeIdleAdvances(new Date(Date.now() - ADVANCE_STALE_MS));
  if (r.events || r.deliveries || advances) logger.info('re-driven', { ...r, advances });
  return { ...r, advances };
});
