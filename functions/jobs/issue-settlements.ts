import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '../../shared/kernel/logger';
import { dispatchSettlementRun } from '../../shared/settlements/run';

/** EventBridge cron, the 1st of each month: one message per partner and environment on the settlement queue. */
export const handler = async (event: ScheduledEvent) => {
  logger.appendKeys({ job: 'issueSettlements', scheduled_at: event.time });
  const r = await dispatchSettlementRun(new Date(event.time));
  logger.info('settlement run dispatched', r);
  return r;
};
