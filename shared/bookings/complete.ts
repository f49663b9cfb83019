import { dataTable, transact } from '../db/client';
import { recordEvent } from '../events/record';
import { ApiError } from '../kernel/errors';
import { countEvent } from '../kernel/metrics';
import type { Env } from '../kernel/tenant';
import { addDays, localDate } from '../kernel/time';
import { publishEvents } from '../webhooks/queue';
import { bookingStore } from './store';

/**
 * Moves CONFIRMED bookings whose travel date has passed to COMPLETED, each
 * with its booking.completed event in the same transaction. Looks back 7
 * days from `throughDate` so a missed run catches up.
 */
export async function completeBookings(throughDate: string, progress: (line: string) => void = () => undefined, now = new Date()) {
  if (throughDate >= localDate(now)) {
    throw new ApiError('validation.field.invalid', `Only travel dates before today (${localDate(now)}, Morocco time) can be completed.`, {
      errors: [{ field: 'date', location: 'body', message: 'not in the past', expected: `before ${localDate(now)}` }],
    });
  }
  let completed = 0;
  const perEnv: Record<Env, number> = { live: 0, test: 0 };
  for (let d = addDays(throughDate, -7); d <= throughDate; d = addDays(d, 1)) {
    for await (const page of bookingStore.confirmedOn(d)) {
      for (const b of page) {
        if (b.status !== 'CONFIRMED') continue;
        const event = recordEvent(
          b.partner_id,
          b.env,
          'booking.completed',
          {
            booking_number: b.booking_number,
            partner_reference: b.partner_reference,
            status: 'COMPLETED',
            travel_date: b.travel_date,
            completed_at: now.toISOString(),
          },
          now,
        );
        // A cancelled transaction means the booking was cancelled or completed meanwhile: nothing to do.
        if (await transact(dataTable.client, { booking: bookingStore.complete(b.booking_number, now) }, [event.item])) continue;
        completed++;
        perEnv[b.env]++;
        await publishEvents([event.ref]);
      }
    }
    progress(`travel date ${d}: ${completed} completed so far`);
  }
  for (const env of ['live', 'test'] as const) if (perEnv[env]) countEvent('BookingsCompleted', env, perEnv[env]);
  return { through_date: throughDate, completed };
}

export const yesterdayInMorocco = (now = new Date()) => addDays(localDate(now), -1);
