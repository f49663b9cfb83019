import { tenantTime } from '../clock/store';
import { dataTable, type Seal, transact, unsealed } from '../db/client';
import { recordEvent } from '../events/record';
import { ApiError } from '../kernel/errors';
import { countEvent } from '../kernel/metrics';
import type { Env } from '../kernel/tenant';
import { addDays, localDate } from '../kernel/time';
import { settlementLedger } from '../settlements/ledger';
import { publishEvents } from '../webhooks/queue';
import type { BookingRecord } from './model';
import { bookingStore } from './store';

const notCompletable = (b: BookingRecord) =>
  new ApiError('booking.not_completable', `Booking ${b.booking_number} is ${b.status} and cannot be completed.`, { status: b.status });

/**
 * CONFIRMED -> COMPLETED with its booking.completed event in one transaction
 * (and the booking's line in its settlement while that is a DRAFT). Undefined
 * when the booking left CONFIRMED meanwhile, or stayed contended.
 */
export async function completeBooking(b: BookingRecord, seal: Seal<BookingRecord> = unsealed, now = new Date()): Promise<BookingRecord | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (b.status !== 'CONFIRMED') return undefined;
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
    const result: BookingRecord = { ...b, status: 'COMPLETED', completed_at: now.toISOString(), updated_at: now.toISOString() };
    const cancelled = await transact(
      dataTable.client,
      { booking: bookingStore.complete(b.booking_number, now), row: bookingStore.listRow(result), ...(await settlementLedger.completed(b, now)) },
      [event.item],
      seal.items(result),
    );
    if (!cancelled) {
      await publishEvents([event]);
      return result;
    }
    // The booking was cancelled or completed meanwhile, or its settlement was issued: decide again on what it is now.
    const fresh = await bookingStore.get(b.booking_number);
    if (!fresh) return undefined;
    b = fresh;
  }
  // Still contended: the daily job's next run (it looks back 7 days) completes it.
  return undefined;
}

/** The test helper: a sandbox booking travels now, whatever its date. */
export async function completeNow(b: BookingRecord, seal: Seal<BookingRecord> = unsealed, now = new Date()): Promise<BookingRecord> {
  if (b.status !== 'CONFIRMED') throw notCompletable(b);
  const done = await completeBooking(b, seal, now);
  if (done) return done;
  const fresh = (await bookingStore.get(b.booking_number)) ?? b;
  if (fresh.status !== 'CONFIRMED') throw notCompletable(fresh);
  throw new ApiError('booking.slot.contended', 'The booking is being changed concurrently; retry in a moment with the same Idempotency-Key.', undefined, {
    'retry-after': '1',
  });
}

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
        // A sandbox booking completes at its clock's time (an advance may have taken the clock ahead).
        if (!(await completeBooking(b, unsealed, await tenantTime(b.partner_id, b.env, now)))) continue;
        completed++;
        perEnv[b.env]++;
      }
    }
    progress(`travel date ${d}: ${completed} completed so far`);
  }
  for (const env of ['live', 'test'] as const) if (perEnv[env]) countEvent('BookingsCompleted', env, perEnv[env]);
  return { through_date: throughDate, completed };
}

export const yesterdayInMorocco = (now = new Date()) => addDays(localDate(now), -1);
