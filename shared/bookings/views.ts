import type { z } from 'zod';
import { money, toMinor } from '../kernel/money';
import type { BookingListRow, BookingRecord } from './model';
import { initials, refundPreview } from './rules';
import type { Booking, BookingListItem, CancellationQuote } from './schemas';

export type BookingView = z.input<typeof Booking>;
export type BookingListView = z.input<typeof BookingListItem>;
export type CancellationQuoteView = z.input<typeof CancellationQuote>;

/** Fields shown both in the list and in the detail. */
function bookingCore(b: BookingRecord | BookingListRow) {
  return {
    booking_number: b.booking_number,
    partner_reference: b.partner_reference,
    status: b.status,
    test_mode: b.env === 'test',
    quote_id: b.quote_id,
    travel_date: b.travel_date,
    start_time: b.start_time,
    net_amount: b.net_amount,
    created_at: b.created_at,
  };
}

export function bookingView(b: BookingRecord): BookingView {
  return {
    ...bookingCore(b),
    adventure: b.adventure,
    rate_pack: b.rate_pack,
    contact: b.contact,
    travelers: b.travelers,
    cancellation_policy: b.cancellation_policy,
    payment: { payment_reference: b.payment.payment_reference, paid_at: b.payment.paid_at, amount: b.payment.amount },
    cancellation: b.cancellation ?? null,
    updated_at: b.updated_at,
    completed_at: b.completed_at ?? null,
    settlement_period: b.settlement_period ?? null,
  };
}

export function bookingListView(row: BookingListRow): BookingListView {
  return { ...bookingCore(row), adventure_slug: row.adventure_slug, adventure_title: row.adventure_title ?? row.adventure_slug, travelers: row.travelers };
}

/** The booking's row in its tenant's list, as of this record. */
export function bookingListRow(b: BookingRecord): BookingListRow {
  return {
    booking_number: b.booking_number,
    env: b.env,
    partner_reference: b.partner_reference,
    customer_ref_hash: b.customer_ref_hash,
    status: b.status,
    quote_id: b.quote_id,
    travel_date: b.travel_date,
    start_time: b.start_time,
    net_amount: b.net_amount,
    created_at: b.created_at,
    adventure_slug: b.adventure.slug,
    adventure_title: b.adventure.title,
    travelers: b.travelers.map((t) => ({ initials: initials(t.first_name, t.last_name) })),
  };
}

/**
 * The refund a cancellation would get now, and until when that holds. A booking that cannot be cancelled now
 * (CANCELLED, COMPLETED, or started: cancelBooking refuses it) has no refund figures: they are null, never a
 * second refund that reads as available.
 */
export function cancellationQuoteView(b: BookingRecord, now = new Date()): CancellationQuoteView {
  const preview = refundPreview(toMinor(b.net_amount.amount), b.cancellation_policy.rules, new Date(b.starts_at), now);
  const cancellable = b.status === 'CONFIRMED' && Date.parse(b.starts_at) > now.getTime();
  return {
    booking_number: b.booking_number,
    status: b.status,
    cancellable,
    currency: 'MAD',
    amount_paid: b.net_amount,
    refundable_amount: cancellable ? money(preview.refundable) : null,
    fee_amount: cancellable ? money(preview.fee) : null,
    refund_percent: cancellable ? preview.refund_percent : null,
    hours_before_start: preview.hours_before_start,
    policy: b.cancellation_policy,
    applied_rule: cancellable ? preview.applied_rule : null,
    valid_until: cancellable ? (preview.valid_until?.toISOString() ?? null) : null,
    computed_at: now.toISOString(),
  };
}
