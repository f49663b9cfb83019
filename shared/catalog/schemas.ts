import * as z from 'zod';
import { BoundedDate } from '../http/bounds';
import { personal, pub } from '../http/data-class';
import { CalendarDate, Money, PageMeta, pageQuery } from '../http/schemas';
import { CATEGORIES } from './import-format';

const Mad = pub(z.string().regex(/^\d{1,9}(\.\d{1,2})?$/, 'an amount in MAD, e.g. 250 or 250.00 (at most 9 digits before the point)'));
const Category = z.enum(CATEGORIES).meta({ id: 'Category', dataClass: 'public' });
export const BookingMode = z.enum(['SCHEDULED', 'FLEXIBLE']).meta({
  id: 'BookingMode',
  description: 'SCHEDULED: dated departures at fixed times. FLEXIBLE: any time on a day, against a daily capacity.',
  dataClass: 'public',
});

export const AdventureListQuery = pageQuery
  .extend({
    sort: pub(z.enum(['popularity', 'price', '-price', 'distance']))
      .default('popularity')
      .describe('popularity (default, most popular first), price (from-price ascending), -price (descending), distance (needs lat and lng)'),
    // What a person typed: free text.
    q: personal(z.string().max(100)).optional().describe('Text search in title, summary, city, agency and category'),
    city: personal(z.string().max(60)).optional(),
    category: Category.optional(),
    date: BoundedDate.optional().describe(
      'Only adventures operating on this date (Morocco time) within their booking window; exact seats via /availability. From 2000-01-01 to the booking horizon (today plus 365 days)',
    ),
    min_price: Mad.optional().describe('Minimum from-price in MAD'),
    max_price: Mad.optional().describe('Maximum from-price in MAD'),
    // A position may be a person's (sort=distance from where the customer stands).
    lat: personal(z.coerce.number().min(-90).max(90)).optional(),
    lng: personal(z.coerce.number().min(-180).max(180)).optional(),
  })
  .superRefine((q, ctx) => {
    if (q.sort === 'distance') {
      for (const f of ['lat', 'lng'] as const)
        if (q[f] === undefined) ctx.addIssue({ code: 'custom', path: [f], message: 'sort=distance needs both lat and lng.', params: { missing: true } });
    }
    if ((q.lat === undefined) !== (q.lng === undefined))
      ctx.addIssue({ code: 'custom', path: [q.lat === undefined ? 'lat' : 'lng'], message: 'lat and lng go together: give both or neither.' });
  });

// The catalog is the service's own content: public.
const Location = z.object({ lat: pub(z.number()), lng: pub(z.number()) });

export const AdventureSummary = z
  .object({
    id: pub(z.uuid()),
    slug: pub(z.string()),
    title: pub(z.string()),
    summary: pub(z.string()),
    city: pub(z.string()),
    category: Category,
    location: Location,
    duration_minutes: pub(z.number().int()),
    rating: pub(z.number()).describe('Average rating of the visible reviews, two decimals (0 without reviews)'),
    review_count: pub(z.number().int()).describe('Number of visible reviews (GET /reviews?adventure=<slug>)'),
    popularity: pub(z.number().int()),
    from_price: Money.describe('Lowest price of a standard adult (age 30) over the rate packs'),
    booking_modes: z.array(BookingMode),
    image: pub(z.url()),
    agency_name: pub(z.string()),
    bookable: pub(z.boolean()).describe('false when the operator has withdrawn the adventure'),
    distance_km: pub(z.number()).optional().describe('From lat/lng, when given'),
  })
  .meta({ id: 'AdventureSummary' });

export const AdventurePage = z
  .object({ data: z.array(AdventureSummary), meta: PageMeta })
  .meta({ id: 'AdventurePage', description: 'Offset-based: meta carries total_results and page_number.' });

const AgeBracket = z
  .object({ code: pub(z.string()), label: pub(z.string()), min_age: pub(z.number().int()), max_age: pub(z.number().int()), price: Money })
  .meta({ id: 'AgeBracket', description: 'Bounds inclusive, age on the travel date' });
export const CancellationPolicy = z
  .object({
    code: pub(z.string()),
    description: pub(z.string()),
    rules: z.array(z.object({ hours_before: pub(z.number().int()), refund_percent: pub(z.number().int()) })),
  })
  .meta({ id: 'CancellationPolicy', description: 'Refund percent by hours left before the start; the largest threshold reached applies' });

export const RatePack = z
  .object({
    id: pub(z.uuid()),
    name: pub(z.string()),
    description: pub(z.string()).nullable(),
    booking_mode: BookingMode,
    age_brackets: z.array(AgeBracket),
    min_travelers: pub(z.number().int()),
    max_travelers: pub(z.number().int()),
    cancellation_policy: CancellationPolicy,
    schedule: z.object({
      weekdays: z.array(pub(z.number().int())).describe('ISO weekdays, 1 = Monday'),
      start_times: z.array(pub(z.string())).optional(),
      capacity_per_departure: pub(z.number().int()).optional(),
      daily_capacity: pub(z.number().int()).optional(),
    }),
    booking_window_days: pub(z.number().int()),
  })
  .meta({ id: 'RatePack' });

export const AdventureDetail = AdventureSummary.extend({
  description: pub(z.string()),
  images: z.array(pub(z.url())),
  agency: z.object({ id: pub(z.uuid()), name: pub(z.string()) }),
  rate_packs: z.array(RatePack),
}).meta({ id: 'Adventure' });

export const SlugParams = z.object({ slug: pub(z.string().regex(/^[a-z0-9-]{1,120}$/)) });

export const AvailabilityQuery = z.object({
  from: BoundedDate.optional().describe('First date (default today, Morocco time); no later than the booking horizon (today plus 365 days)'),
  to: BoundedDate.optional().describe('Last date, inclusive (default from + 13 days; at most 62 days in all); no later than the booking horizon'),
  rate_pack_id: pub(z.uuid()).optional(),
});

export const Availability = z
  .object({
    adventure_id: pub(z.uuid()),
    adventure_slug: pub(z.string()),
    from: CalendarDate,
    to: CalendarDate,
    data: z.array(
      z.object({
        rate_pack_id: pub(z.uuid()),
        booking_mode: BookingMode,
        date: CalendarDate,
        start_time: pub(z.string()).nullable().describe('null for FLEXIBLE: the slot is the day'),
        capacity: pub(z.number().int()),
        remaining: pub(z.number().int()),
      }),
    ),
  })
  .meta({ id: 'Availability' });
