import * as z from 'zod';
import { MAX_BOOKING_WINDOW_DAYS } from './slots';

/**
 * The catalog import format (`catalog:import FILE`), modelled on activity
 * platforms (OCTO, Viator): an adventure has rate packs; a rate pack has a
 * booking mode, age brackets priced in MAD, traveler limits, a cancellation
 * policy and the schedule from which sellable slots are generated on a
 * rolling window.
 */
const Mad = z.string().regex(/^\d+\.\d{2}$/, 'a MAD amount with exactly two decimals, e.g. "450.00"');
const Time = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM, 24 h');
/** ISO weekdays: 1 = Monday ... 7 = Sunday. */
const Weekdays = z.array(z.number().int().min(1).max(7)).min(1);

export const CATEGORIES = ['DESERT', 'MOUNTAIN', 'CULTURE', 'FOOD', 'WATER', 'WELLNESS', 'ADVENTURE', 'NATURE'] as const;

export const AgeBracketInput = z
  .object({
    code: z.string().regex(/^[A-Z_]+$/),
    label: z.string().min(1),
    /** Inclusive bounds, in whole years on the travel date. */
    min_age: z.number().int().min(0).max(120),
    max_age: z.number().int().min(0).max(120),
    price: Mad,
  })
  .refine((b) => b.min_age <= b.max_age, { message: 'min_age must not exceed max_age' });

export const CancellationRule = z.object({
  /** Applies when cancelling at least this many hours before the start. Rules are read from the largest threshold down. */
  hours_before: z.number().int().min(0),
  refund_percent: z.number().int().min(0).max(100),
});

export const CancellationPolicyInput = z.object({
  code: z.string().regex(/^[A-Z0-9_]+$/),
  description: z.string().min(1),
  rules: z.array(CancellationRule).min(1),
});

export const ScheduledScheduleInput = z.object({
  weekdays: Weekdays,
  start_times: z.array(Time).min(1),
  capacity_per_departure: z.number().int().min(1),
});

export const FlexibleScheduleInput = z.object({
  weekdays: Weekdays,
  daily_capacity: z.number().int().min(1),
});

const RatePackBase = {
  id: z.uuid(),
  name: z.string().min(1),
  description: z.string().optional(),
  age_brackets: z.array(AgeBracketInput).min(1),
  min_travelers: z.number().int().min(1),
  max_travelers: z.number().int().min(1),
  cancellation_policy: CancellationPolicyInput,
  /** Days ahead bookings open (default 60). */
  booking_window_days: z.number().int().min(1).max(MAX_BOOKING_WINDOW_DAYS).optional(),
};

export const RatePackInput = z.discriminatedUnion('booking_mode', [
  z.object({ ...RatePackBase, booking_mode: z.literal('SCHEDULED'), schedule: ScheduledScheduleInput }),
  z.object({ ...RatePackBase, booking_mode: z.literal('FLEXIBLE'), schedule: FlexibleScheduleInput }),
]);

export const AdventureInput = z.object({
  id: z.uuid(),
  slug: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/),
  title: z.string().min(1).max(150),
  summary: z.string().min(1).max(400),
  description: z.string().min(1),
  agency: z.object({ id: z.uuid(), name: z.string().min(1) }),
  city: z.string().min(1),
  location: z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) }),
  category: z.enum(CATEGORIES),
  duration_minutes: z.number().int().min(15),
  images: z.array(z.url()).min(1),
  rating: z.number().min(0).max(5),
  review_count: z.number().int().min(0),
  /** Higher is more popular; the default sort. */
  popularity: z.number().int().min(0),
  /** false: listed but not sellable (withdrawn by the operator). */
  active: z.boolean().default(true),
  rate_packs: z.array(RatePackInput).min(1),
});

export const CatalogFile = z.object({ adventures: z.array(AdventureInput).min(1) });

export type AdventureInput = z.infer<typeof AdventureInput>;
export type RatePackInput = z.infer<typeof RatePackInput>;
export type CatalogFileInput = z.infer<typeof CatalogFile>;
export type CancellationPolicy = z.infer<typeof CancellationPolicyInput>;
