import type { ScheduledEvent } from 'aws-lambda';
import { completeBookings, yesterdayInMorocco } from '../../shared/bookings/complete';
import { logger } from '../../shared/kernel/logger';

/** EventBridge cron, daily: bookings whose travel date has passed become COMPLETED. */
export const handler = async (event: ScheduledEvent) => {
  logger.appendKeys({ job: 'completeBookings', scheduled_at: event.time });
  const r = await completeBookings(yesterdayInMorocco(new Date(event.time)), (line) => logger.info(line));
  logger.info('booking completion done', r);
  return r;
};
