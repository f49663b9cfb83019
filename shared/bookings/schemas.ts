import * as z from 'zod';
import { BoundedInstant, singleLine } from '../http/bounds';
import { personal, pub, secret } from '../http/data-class';
import { CalendarDate, csvOf, Money, PageMeta, pageQuery } from '../http/schemas';
import { BOOKING_NUMBER_RE } from './rules';

const Status = z.enum(['CONFIRMED', 'COMPLETED', 'CANCELLED']).meta({ id: 'BookingStatus', dataClass: 'public' });
const Name = personal(singleLine(z.string()).trim().min(1).max(100));

export const CreateBookingBody = z
  .object({
    quote_id: pub(z.uuid()),
    // Free text of the partner's: it may name a customer.
    partner_reference: personal(singleLine(z.string()).min(1).max(64)).describe('Your own reference, unique per environment; one line, no control characters'),
    customer_reference: personal(z.string().min(1).max(128)).describe(
      "Your customer's id: pseudonymized with HMAC-SHA256 under a key of yours, never stored nor returned",
    ),
    contact: z
      .object({
        first_name: Name,
        last_name: Name,
        email: personal(z.email()),
        phone: personal(z.string().regex(/^\+?[0-9 ()-]{6,20}$/, 'a phone number, e.g. +212 600 000 000')),
      })
      .strict(),
    travelers: z
      .array(z.object({ first_name: Name, last_name: Name }).strict())
      .min(1)
      .max(50)
      .describe("In the order of the quote's travelers"),
    payment_confirmation: secret(z.string().min(1).max(4096)).describe(
      'Compact JWS (ES256, kid in the header) over {quote_id, amount, payment_reference, paid_at}',
    ),
  })
  .strict()
  .meta({ id: 'CreateBookingRequest' });

const Cancellation = z
  .object({
    cancelled_at: pub(z.iso.datetime()),
    cancelled_by: pub(z.enum(['PARTNER', 'SERVICE'])),
    reason: personal(z.string()).nullable(),
    refund_amount: Money,
    fee_amount: Money,
    refund_percent: pub(z.number().int()),
    policy_code: pub(z.string()),
  })
  .meta({ id: 'BookingCancellation' });

const Rule = z.object({ hours_before: pub(z.number().int()), refund_percent: pub(z.number().int()) });
const Policy = z.object({
  code: pub(z.string()),
  description: pub(z.string()),
  rules: z.array(Rule),
});

/** Fields of both the list items and the detail (bookingCore in shared/bookings/service.ts). */
const BookingCore = z.object({
  booking_number: pub(z.string()),
  partner_reference: personal(z.string()),
  status: Status,
  test_mode: pub(z.boolean()),
  quote_id: pub(z.uuid()),
  travel_date: CalendarDate,
  start_time: pub(z.string()).nullable(),
  net_amount: Money,
  created_at: pub(z.iso.datetime()),
});

const AgeBracket = z.object({
  code: pub(z.string()),
  label: pub(z.string()),
  min_age: pub(z.number().int()),
  max_age: pub(z.number().int()),
});

export const Booking = BookingCore.extend({
  adventure: z.object({ id: pub(z.uuid()), slug: pub(z.string()), title: pub(z.string()) }),
  rate_pack: z.object({ id: pub(z.uuid()), name: pub(z.string()), booking_mode: pub(z.string()) }),
  contact: z.object({ first_name: personal(z.string()), last_name: personal(z.string()), email: personal(z.string()), phone: personal(z.string()) }),
  travelers: z.array(
    z.object({
      first_name: personal(z.string()),
      last_name: personal(z.string()),
      age: pub(z.number().int()),
      age_bracket: AgeBracket,
      price: Money,
    }),
  ),
  cancellation_policy: Policy,
  payment: z.object({ payment_reference: personal(z.string()), paid_at: pub(z.string()), amount: Money }),
  cancellation: Cancellation.nullable(),
  updated_at: pub(z.iso.datetime()),
  completed_at: pub(z.iso.datetime()).nullable(),
  settlement_period: pub(z.string().regex(/^\d{4}-\d{2}$/))
    .nullable()
    .describe(
      'The month (YYYY-MM) of the settlement that bills this booking, the month it was confirmed in: GET /settlements?period_from=…&period_to=… finds it (a DRAFT until it is issued). A refund after that settlement was issued is an ADJUSTMENT line of a later one. null for bookings recorded before it was kept',
    ),
}).meta({ id: 'Booking' });

export const BookingListItem = BookingCore.extend({
  adventure_slug: pub(z.string()),
  adventure_title: pub(z.string()).describe("The adventure's title, as booked"),
  travelers: z.array(z.object({ initials: personal(z.string()) })).describe('Names reduced to initials; full details on GET /bookings/{booking_number}'),
}).meta({ id: 'BookingListItem' });

export const BookingPage = z.object({ data: z.array(BookingListItem), meta: PageMeta }).meta({ id: 'BookingPage' });

export const BookingListQuery = pageQuery.extend({
  status: csvOf(Status.options).describe('Comma-separated: CONFIRMED, COMPLETED, CANCELLED'),
  customer_reference: personal(z.string().min(1).max(128)).optional().describe('Plaintext customer id; matched against the stored hash'),
  partner_reference: personal(z.string().min(1).max(64)).optional().describe('Your own reference, exactly as you gave it: at most one booking matches'),
  created_from: BoundedInstant.optional().describe('Bookings created at or after this instant (from 2000-01-01 to the booking horizon)'),
  created_to: BoundedInstant.optional().describe('Bookings created at or before this instant (from 2000-01-01 to the booking horizon)'),
});

export const BookingNumberParams = z.object({ booking_number: pub(z.string().regex(BOOKING_NUMBER_RE, 'a booking number like PTB-7K3M-Q9XD')) });
export const CancelBookingBody = z
  // Free text of the partner's staff: it often names the customer.
  .object({ reason: personal(singleLine(z.string()).max(500)).optional() })
  .strict()
  .meta({ id: 'CancelBookingRequest' });

export const CancellationQuote = z
  .object({
    booking_number: pub(z.string()),
    status: Status,
    cancellable: pub(z.boolean()).describe(
      'Whether POST /bookings/{booking_number}/cancel would cancel it now: false once CANCELLED or COMPLETED, or once the adventure has started',
    ),
    currency: pub(z.literal('MAD')),
    amount_paid: Money,
    refundable_amount: Money.nullable().describe(
      'What cancelling now refunds; null when cancellable is false (nothing can be cancelled, no refund is available)',
    ),
    fee_amount: Money.nullable().describe('What cancelling now keeps; null when cancellable is false'),
    refund_percent: pub(z.number().int()).nullable().describe('null when cancellable is false'),
    hours_before_start: pub(z.number()),
    policy: Policy,
    applied_rule: Rule.nullable().describe('The rule of the policy that applies now; null when cancellable is false, or when no rule applies'),
    valid_until: pub(z.iso.datetime())
      .nullable()
      .describe(
        'The preview holds until then (the next threshold of the policy); null when cancellable is false, or when no threshold is left before the start',
      ),
    computed_at: pub(z.iso.datetime()),
  })
  .meta({ id: 'CancellationQuote' });
