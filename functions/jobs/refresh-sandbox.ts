import type { ScheduledEvent } from 'aws-lambda';
import { refreshSandboxes } from '../../shared/catalog/operations';
import { logger } from '../../shared/kernel/logger';

/** EventBridge cron, Sunday 03:00 UTC: refresh every tenant's sandbox catalog from production. */
export const handler = async (event: ScheduledEvent) => {
  logger.appendKeys({ job: 'refreshSandboxCatalogs', scheduled_at: event.time });
  const r = await refreshSandboxes((line) => logger.info(line));
  logger.info('sandbox refresh done', r);
  return r;
};
