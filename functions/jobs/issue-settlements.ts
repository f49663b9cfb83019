import { jobHandler } from '../../shared/jobs/run';
import { dispatchSettlementRun } from '../../shared/settlements/schedule';

/** EventBridge cron, the 1st of each month: one message per partner and environment on the settlement queue. */
export const handler = jobHandler('issueSettlements', (scheduledAt) => dispatchSettlementRun(scheduledAt));
