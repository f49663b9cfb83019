import * as z from 'zod';
import { BookingMode, CancellationPolicy } from '../catalog/schemas';
import { BirthDate, BoundedDate } from '../http/bounds';
import { pub } from '../http/data-class';
import { CalendarDate, Money, PageMeta } from '../http/schemas';

const TravelerIn = z.union([
  // An age alone names no one (the quote has no names); a birth date is personal.
  z.object({ age: pub(z.number().int().min(0).max(120)).describe('Age on the travel date') }).strict(),
  z.object({ birth_date: BirthDate.describe('The age on the travel date is computed from it; from 1900-01-01 to today') }).strict(),
]);

export const CreateQuoteBody = z
  .object({
    rate_pack_id: pub(z.uuid()),
    start_date: BoundedDate.describe('The travel date, no later than the booking horizon (today plus 365 days, Morocco time)'),
    start_time: pub(z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM'))
      .nullable()
      .optional()
      .describe('A departure time for SCHEDULED packs; null or absent for FLEXIBLE'),
    travelers: z.array(TravelerIn).min(1).max(50),
  })
  .strict()
  .meta({ id: 'CreateQuoteRequest' });

export const QuoteSummary = z
  .object({
    id: pub(z.uuid()),
    adventure_slug: pub(z.string()),
    rate_pack_id: pub(z.uuid()),
    start_date: CalendarDate,
    start_time: pub(z.string()).nullable(),
    net_amount: Money,
    expired: pub(z.boolean()),
    expires_at: pub(z.iso.datetime()),
    created_at: pub(z.iso.datetime()),
  })
  .meta({ id: 'QuoteSummary' });

export const Quote = QuoteSummary.extend({
  adventure_id: pub(z.uuid()),
  adventure_title: pub(z.string()),
  rate_pack_name: pub(z.string()),
  booking_mode: BookingMode,
  travelers: z.array(
    z.object({
      index: pub(z.number().int()).describe('Position in the request'),
      age: pub(z.number().int()),
      age_bracket: z
        .object({ code: pub(z.string()), label: pub(z.string()), min_age: pub(z.number().int()), max_age: pub(z.number().int()) })
        .describe('The effective bracket applied'),
      price: Money,
    }),
  ),
  cancellation_policy: CancellationPolicy,
  test_mode: pub(z.boolean()),
  booking_number: pub(z.string()).nullable().describe('Set once a booking consumed the quote'),
}).meta({ id: 'Quote', description: 'Price-locked for 30 minutes (expires_at); net_amount is the consumer price.' });

export const QuotePage = z.object({ data: z.array(QuoteSummary), meta: PageMeta }).meta({ id: 'QuotePage' });
export const QuoteIdParams = z.object({ id: pub(z.uuid()) });
