import { completeBookings, yesterdayInMorocco } from '../../shared/bookings/complete';
import { jobHandler } from '../../shared/jobs/run';
import { logger } from '../../shared/kernel/logger';

/** EventBridge cron, daily: bookings whose travel date has passed become COMPLETED. */
export const handler = jobHandler('completeBookings', (scheduledAt) => completeBookings(yesterdayInMorocco(scheduledAt), (line) => logger.debug(line)));
