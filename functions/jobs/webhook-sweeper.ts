import { jobHandler } from '../../shared/jobs/run';
import { sweep } from '../../shared/webhooks/sweep';

/** Every 5 minutes: re-drives events not fanned out and deliveries whose attempt is overdue. */
export const handler = jobHandler('webhookSweeper', () => sweep());
