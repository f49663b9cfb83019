import { inventoryStore } from '../catalog/inventory';
import { soldOutCleared } from '../catalog/unavailable';
import { dataTable, type Seal, transact, unsealed } from '../db/client';
import { backoff } from '../db/retry';
import { recordEvent } from '../events/record';
import { ApiError, notFound } from '../kernel/errors';
import { countEvent } from '../kernel/metrics';
import { money, toMinor } from '../kernel/money';
import { settlementLedger } from '../settlements/ledger';
import { publishEvents } from '../webhooks/queue';
import type { BookingRecord, Cancellation } from './model';
import { notify } from './notify';
import { refundPreview } from './rules';
import { bookingStore } from './store';

const MAX_CANCEL_ATTEMPTS = 11;
const notCancellable = (b: BookingRecord, status = b.status) =>
  new ApiError('booking.not_cancellable', `Booking ${b.booking_number} is ${status} and cannot be cancelled.`, { status });

/**
 * Cancels a CONFIRMED booking: in one transaction the status change with its
 * refund record, the seats released and the booking.cancelled event. The
 * partner gets the policy's refund; a cancellation by the service refunds in full.
 */
export async function cancelBooking(
  b: BookingRecord,
  by: 'PARTNER' | 'SERVICE',
  reason: string | null,
  seal: Seal<BookingRecord> = unsealed,
  now = new Date(),
): Promise<BookingRecord> {
  for (let attempt = 0; ; attempt++) {
    if (b.status !== 'CONFIRMED') throw notCancellable(b);
    // Once the adventure has started the booking is being fulfilled: it completes, it is not cancelled.
    if (by === 'PARTNER' && Date.parse(b.starts_at) <= now.getTime()) {
      throw new ApiError('booking.not_cancellable', `Booking ${b.booking_number} started at ${b.starts_at} and can no longer be cancelled.`, {
        status: b.status,
        starts_at: b.starts_at,
      });
    }
    const amount = toMinor(b.net_amount.amount);
    const preview = refundPreview(amount, b.cancellation_policy.rules, new Date(b.starts_at), now);
    const refund = by === 'SERVICE' ? amount : preview.refundable;
    const cancellation: Cancellation = {
      cancelled_at: now.toISOString(),
      cancelled_by: by,
      reason,
      refund_amount: money(refund),
      fee_amount: money(amount - refund),
      refund_percent: by === 'SERVICE' ? 100 : preview.refund_percent,
      policy_code: b.cancellation_policy.code,
    };
    const event = recordEvent(
      b.partner_id,
      b.env,
      'booking.cancelled',
      {
        booking_number: b.booking_number,
        partner_reference: b.partner_reference,
        status: 'CANCELLED',
        travel_date: b.travel_date,
        cancelled_by: by,
        refund_amount: cancellation.refund_amount,
        cancelled_at: cancellation.cancelled_at,
      },
      now,
    );
    const slot = { date: b.travel_date, start_time: b.start_time };
    const result: BookingRecord = { ...b, status: 'CANCELLED', cancellation, updated_at: now.toISOString() };
    const cancelled = await transact(
      dataTable.client,
      {
        booking: bookingStore.cancel(b.booking_number, cancellation, now),
        row: bookingStore.listRow(result),
        seats: inventoryStore.releaseSeats(b.inventory, b.rate_pack.id, slot, b.travelers.length),
        ...(await settlementLedger.cancelled(b, refund, now)),
      },
      // Seats are free again: the slot's next sell-out is announced anew.
      [event.item, soldOutCleared(b.inventory, b.adventure.id, b.rate_pack.id, slot)],
      seal.items(result),
    );
    if (!cancelled) {
      countEvent('BookingsCancelled', b.env);
      await publishEvents([event]);
      await notify(result, 'cancelled');
      return result;
    }
    if (!cancelled.failed('booking') && !cancelled.failed('line') && !cancelled.conflict)
      throw new Error(`cancellation was cancelled (${cancelled.codes.join(', ')})`);
    // Changed meanwhile (the booking, or its line): read it again and decide on what it is now.
    const fresh = await bookingStore.get(b.booking_number);
    if (fresh && fresh.status !== 'CONFIRMED') throw notCancellable(fresh);
    if (!fresh || attempt + 1 >= MAX_CANCEL_ATTEMPTS) {
      throw new ApiError('booking.slot.contended', 'The booking is being changed concurrently; retry in a moment with the same Idempotency-Key.', undefined, {
        'retry-after': '1',
      });
    }
    await backoff(attempt);
    b = fresh;
  }
}

/** The service cancels a booking (operator command): full refund. */
export async function cancelByService(bookingNumber: string, reason: string | null, now = new Date()) {
  const b = await bookingStore.get(bookingNumber);
  if (!b) throw notFound('Booking', bookingNumber);
  return cancelBooking(b, 'SERVICE', reason, unsealed, now);
}
