import { refreshSandboxes } from '../../shared/catalog/operations';
import { jobHandler } from '../../shared/jobs/run';
import { logger } from '../../shared/kernel/logger';

/** EventBridge cron, Sunday 03:00 UTC: refresh every tenant's sandbox catalog from production. */
export const handler = jobHandler('refreshSandboxCatalogs', () => refreshSandboxes((line) => logger.info(line)));
