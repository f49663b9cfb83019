import { jobHandler } from '../../shared/jobs/run';
import { logger } from '../../shared/kernel/logger';
import { sweep } from '../../shared/webhooks/sweep';

/** Every 5 minutes: re-drives events not fanned out and deliveries whose attempt is overdue (logged only when there were some). */
export const handler = jobHandler('webhookSweeper', async () => {
  const r = await sweep();
  if (r.events || r.deliveries) logger.info('re-driven', r);
  return r;
});
