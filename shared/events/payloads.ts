import * as z from 'zod';
import type { EventType } from './types';

/**
 * The `data` of each event type, exactly: what the code that records an event
 * passes (recordEvent is typed by these) and what POST /webhooks/{id}/test
 * sends as its example. Strict, so an example with a field the real event
 * lacks, or without one it has, fails the unit test.
 */
const Money = z
  .object({
    amount: z
      .string()
      .regex(/^-?\d+\.\d{2}$/)
      .describe('Decimal amount as text, two decimals (no floating point), e.g. "450.00"'),
    currency: z.literal('MAD').describe('ISO 4217 currency: Moroccan dirham, the only one'),
  })
  .strict();
// format: date, so that generated clients type it as a date (a Java LocalDate).
const Day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .meta({ format: 'date' });
const Time = z.string().regex(/^\d{2}:\d{2}$/);

export const UNAVAILABLE_REASONS = ['WITHDRAWN', 'SLOT_CLOSED', 'RATE_PACK_REMOVED', 'SOLD_OUT', 'SANDBOX_REFRESH'] as const;
export type UnavailableReason = (typeof UNAVAILABLE_REASONS)[number];

// Every field says what it means: the OpenAPI document's webhooks section (shared/events/openapi.ts) carries these descriptions.
const bookingNumber = () => z.string().describe('The booking, as the service numbers it (PTB-XXXX-XXXX): GET /bookings/{booking_number}');
const partnerReference = () => z.string().describe('Your own reference for the booking, as you gave it when booking');
const travelDate = () => Day.describe('The day of the adventure (YYYY-MM-DD, Morocco time)');

export const EVENT_PAYLOADS = {
  'booking.confirmed': z
    .object({
      booking_number: bookingNumber(),
      partner_reference: partnerReference(),
      status: z.literal('CONFIRMED').describe("The booking's status after the change"),
      travel_date: travelDate(),
      start_time: Time.nullable().describe('Start time on the travel date (HH:MM, Morocco time); null for a FLEXIBLE adventure, bookable any time that day'),
      quote_id: z.uuid().describe('The price-locked quote that was booked'),
      adventure_slug: z.string().describe('The adventure booked: GET /adventures/{slug}'),
    })
    .strict(),
  'booking.cancelled': z
    .object({
      booking_number: bookingNumber(),
      partner_reference: partnerReference(),
      status: z.literal('CANCELLED').describe("The booking's status after the change"),
      travel_date: travelDate(),
      cancelled_by: z
        .enum(['PARTNER', 'SERVICE'])
        .describe(
          'PARTNER: you cancelled it (POST /bookings/{booking_number}/cancel). SERVICE: the service cancelled it (an operator, e.g. the adventure cannot run), refunded in full',
        ),
      refund_amount: Money.describe(
        "What you are refunded: for PARTNER, the cancellation policy's refund at the time of cancelling (0.00 past its last threshold); for SERVICE, the booking's whole net amount. The settlement carries it (the fee kept, or an ADJUSTMENT line once invoiced)",
      ),
      cancelled_at: z.iso.datetime().describe("When the cancellation took effect (UTC); the booking's cancellation.cancelled_at"),
    })
    .strict(),
  'booking.completed': z
    .object({
      booking_number: bookingNumber(),
      partner_reference: partnerReference(),
      status: z.literal('COMPLETED').describe("The booking's status after the change"),
      travel_date: travelDate().describe('The day the traveler took the adventure (YYYY-MM-DD, Morocco time), now past'),
      completed_at: z.iso
        .datetime()
        .describe(
          "When the booking was marked COMPLETED (UTC): by the daily job (00:30 UTC) after its travel date, or by the sandbox's complete test helper at any time. From then on it cannot be cancelled, and it is invoiced as COMPLETED",
        ),
    })
    .strict(),
  'settlement.issued': z
    .object({
      settlement_id: z.uuid().describe('The settlement: GET /settlements/{id}, its invoice PDF and statement CSV'),
      number: z.string().describe('The invoice number, to quote with your transfer (TEST- prefix in the sandbox)'),
      status: z.literal('ISSUED').describe("The settlement's status after the change"),
      period_start: Day.describe('First day of the month invoiced (YYYY-MM-DD)'),
      period_end: Day.describe('Last day of the month invoiced (YYYY-MM-DD), inclusive'),
      total_due: Money.describe('What you owe: the exact sum of the lines'),
      issue_date: Day.describe('The invoice date (YYYY-MM-DD)'),
      due_date: Day.describe('Pay by this date (YYYY-MM-DD)'),
      booking_count: z.number().int().describe('Bookings the settlement covers'),
      line_count: z.number().int().describe('Lines of its statement: one per booking, plus ADJUSTMENT lines for refunds of bookings invoiced earlier'),
    })
    .strict(),
  'settlement.paid': z
    .object({
      settlement_id: z.uuid().describe('The settlement: GET /settlements/{id}'),
      number: z.string().describe('The invoice number'),
      status: z.literal('PAID').describe("The settlement's status after the change"),
      paid_at: z.iso.datetime().describe('When the service recorded your transfer (UTC)'),
      transfer_reference: z.string().describe('The reference of the transfer received'),
      amount_received: Money.describe('The amount received'),
    })
    .strict(),
  'review.moderated': z
    .object({
      review_id: z.uuid().describe('The review: GET /reviews/{id} (404 once DELETED)'),
      reviewable_type: z.enum(['EXPERIENCE', 'TRIP', 'AGENCY']).describe('What the review is about'),
      reviewable_id: z.uuid().describe('The id of what the review is about'),
      booking_id: z.uuid().describe('A stable UUID derived from the booking number (bookings are addressed by number)'),
      booking_number: bookingNumber(),
      partner_reference: partnerReference(),
      action: z
        .enum(['HIDDEN', 'RESTORED', 'DELETED'])
        .describe('HIDDEN: no longer public (you still read it). RESTORED: public again. DELETED: removed for good, its content erased'),
      moderated_at: z.iso.datetime().describe('When the moderation took effect (UTC)'),
    })
    .strict(),
  'adventure.unavailable': z
    .object({
      adventure_id: z.uuid().describe('The adventure that stopped being sellable, wholly or in part'),
      adventure_slug: z.string().describe("The adventure's slug: GET /adventures/{slug}"),
      rate_pack_id: z.uuid().nullable().describe('The rate pack concerned; null when the whole adventure is (WITHDRAWN, SANDBOX_REFRESH)'),
      date: Day.nullable().describe('The day concerned (YYYY-MM-DD, Morocco time) for SLOT_CLOSED and SOLD_OUT; null when the whole adventure or rate pack is'),
      start_time: Time.nullable().describe(
        'The departure concerned (HH:MM) for SLOT_CLOSED and SOLD_OUT; null for a FLEXIBLE day and when no slot is concerned',
      ),
      reason: z
        .enum(UNAVAILABLE_REASONS)
        .describe(
          'WITHDRAWN: the adventure is withdrawn from sale. SLOT_CLOSED: an operator closed the slot. RATE_PACK_REMOVED: the rate pack is gone from the adventure. SOLD_OUT: a booking took the last place of the slot. SANDBOX_REFRESH: the weekly sandbox refresh moved you to a catalog without this adventure',
        ),
      quote_ids: z.array(z.uuid()).max(100).describe('Your own open (unexpired, unbooked) quotes on what became unavailable, at most 100 named; possibly none'),
      quote_count: z.number().int().min(0).describe('How many open quotes of yours it concerns, all of them (quote_ids names at most 100)'),
    })
    .strict(),
} as const satisfies Record<EventType, z.ZodType>;

/** The `data` of an event of type T. */
export type EventData<T extends EventType> = z.input<(typeof EVENT_PAYLOADS)[T]>;
