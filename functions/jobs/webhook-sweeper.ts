import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '../../shared/kernel/logger';
import { sweep } from '../../shared/webhooks/sweep';

/** Every 5 minutes: re-drives events not fanned out and deliveries whose attempt is overdue. */
export const handler = async (event: ScheduledEvent) => {
  logger.appendKeys({ job: 'webhookSweeper', scheduled_at: event.time });
  const r = await sweep();
  if (r.events || r.deliveries) logger.info('re-driven', r);
  return r;
};
