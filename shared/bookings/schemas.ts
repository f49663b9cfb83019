import * as z from 'zod';
import { BoundedInstant, singleLine } from '../http/bounds';
import { CalendarDate, csvOf, Money, PageMeta, pageQuery } from '../http/schemas';
import { BOOKING_NUMBER_RE } from './rules';

const Status = z.enum(['CONFIRMED', 'COMPLETED', 'CANCELLED']).meta({ id: 'BookingStatus' });
const Name = singleLine(z.string()).trim().min(1).max(100);

export const CreateBookingBody = z
  .object({
    quote_id: z.uuid(),
    partner_reference: singleLine(z.string()).min(1).max(64).describe('Your own reference, unique per environment; one line, no control characters'),
    customer_reference: z
      .string()
      .min(1)
      .max(128)
      .describe("Your customer's id: pseudonymized with HMAC-SHA256 under a key of yours, never stored nor returned"),
    contact: z
      .object({ first_name: Name, last_name: Name, email: z.email(), phone: z.string().regex(/^\+?[0-9 ()-]{6,20}$/, 'a phone number, e.g. +212 600 000 000') })
      .strict(),
    travelers: z
      .array(z.object({ first_name: Name, last_name: Name }).strict())
      .min(1)
      .max(50)
      .describe("In the order of the quote's travelers"),
    payment_confirmation: z.string().min(1).max(4096).describe('Compact JWS (ES256, kid in the header) over {quote_id, amount, payment_reference, paid_at}'),
  })
  .strict()
  .meta({ id: 'CreateBookingRequest' });

const Cancellation = z
  .object({
    cancelled_at: z.iso.datetime(),
    cancelled_by: z.enum(['PARTNER', 'SERVICE']),
    reason: z.string().nullable(),
    refund_amount: Money,
    fee_amount: Money,
    refund_percent: z.number().int(),
    policy_code: z.string(),
  })
  .meta({ id: 'BookingCancellation' });

const Policy = z.object({
  code: z.string(),
  description: z.string(),
  rules: z.array(z.object({ hours_before: z.number().int(), refund_percent: z.number().int() })),
});

/** Fields of both the list items and the detail (bookingCore in shared/bookings/service.ts). */
const BookingCore = z.object({
  booking_number: z.string(),
  partner_reference: z.string(),
  status: Status,
  test_mode: z.boolean(),
  quote_id: z.uuid(),
  travel_date: CalendarDate,
  start_time: z.string().nullable(),
  net_amount: Money,
  created_at: z.iso.datetime(),
});

export const Booking = BookingCore.extend({
  adventure: z.object({ id: z.uuid(), slug: z.string(), title: z.string() }),
  rate_pack: z.object({ id: z.uuid(), name: z.string(), booking_mode: z.string() }),
  contact: z.object({ first_name: z.string(), last_name: z.string(), email: z.string(), phone: z.string() }),
  travelers: z.array(
    z.object({
      first_name: z.string(),
      last_name: z.string(),
      age: z.number().int(),
      age_bracket: z.object({ code: z.string(), label: z.string(), min_age: z.number().int(), max_age: z.number().int() }),
      price: Money,
    }),
  ),
  cancellation_policy: Policy,
  payment: z.object({ payment_reference: z.string(), paid_at: z.string(), amount: Money }),
  cancellation: Cancellation.nullable(),
  updated_at: z.iso.datetime(),
  completed_at: z.iso.datetime().nullable(),
}).meta({ id: 'Booking' });

export const BookingListItem = BookingCore.extend({
  adventure_slug: z.string(),
  adventure_title: z.string().describe("The adventure's title, as booked"),
  travelers: z.array(z.object({ initials: z.string() })).describe('Names reduced to initials; full details on GET /bookings/{booking_number}'),
}).meta({ id: 'BookingListItem' });

export const BookingPage = z.object({ data: z.array(BookingListItem), meta: PageMeta }).meta({ id: 'BookingPage' });

export const BookingListQuery = pageQuery.extend({
  status: csvOf(Status.options).describe('Comma-separated: CONFIRMED, COMPLETED, CANCELLED'),
  customer_reference: z.string().min(1).max(128).optional().describe('Plaintext customer id; matched against the stored hash'),
  partner_reference: z.string().min(1).max(64).optional().describe('Your own reference, exactly as you gave it: at most one booking matches'),
  created_from: BoundedInstant.optional().describe('Bookings created at or after this instant (from 2000-01-01 to the booking horizon)'),
  created_to: BoundedInstant.optional().describe('Bookings created at or before this instant (from 2000-01-01 to the booking horizon)'),
});

export const BookingNumberParams = z.object({ booking_number: z.string().regex(BOOKING_NUMBER_RE, 'a booking number like PTB-7K3M-Q9XD') });
export const CancelBookingBody = z
  .object({ reason: singleLine(z.string()).max(500).optional() })
  .strict()
  .meta({ id: 'CancelBookingRequest' });

export const CancellationQuote = z
  .object({
    booking_number: z.string(),
    status: Status,
    cancellable: z.boolean(),
    currency: z.literal('MAD'),
    amount_paid: Money,
    refundable_amount: Money,
    fee_amount: Money,
    refund_percent: z.number().int(),
    hours_before_start: z.number(),
    policy: Policy,
    applied_rule: z.object({ hours_before: z.number().int(), refund_percent: z.number().int() }).nullable(),
    valid_until: z.iso.datetime().nullable().describe('The preview holds until then (the next threshold of the policy)'),
    computed_at: z.iso.datetime(),
  })
  .meta({ id: 'CancellationQuote' });
