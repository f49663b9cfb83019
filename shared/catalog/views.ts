import type { z } from 'zod';
import { money, toMinor } from '../kernel/money';
import type { AdventureInput } from './import-format';
import type { AdventureDetail, AdventureSummary as AdventureSummarySchema, Availability } from './schemas';
import { bookingWindowDays } from './slots';
import { type AdventureSummary, summarize } from './store';

export type AdventureSummaryView = z.input<typeof AdventureSummarySchema>;
export type AdventureView = z.input<typeof AdventureDetail>;
export type AvailabilityView = z.input<typeof Availability>;

/** The listing entry as partners see it: location as one object, the price as Money, `bookable` for `active`. */
export function summaryView(a: AdventureSummary, distanceKm?: number): AdventureSummaryView {
  const { lat, lng, from_price, agency, active, sells: _sells, category, booking_modes, ...same } = a;
  return {
    ...same,
    category: category as AdventureSummaryView['category'],
    location: { lat, lng },
    from_price: money(from_price),
    booking_modes: booking_modes as AdventureSummaryView['booking_modes'],
    agency_name: agency,
    bookable: active,
    ...(distanceKm !== undefined ? { distance_km: Math.round(distanceKm * 10) / 10 } : {}),
  };
}

export function adventureView(a: AdventureInput): AdventureView {
  return {
    ...summaryView(summarize(a)),
    description: a.description,
    images: a.images,
    agency: a.agency,
    rate_packs: a.rate_packs.map((rp) => ({
      id: rp.id,
      name: rp.name,
      description: rp.description ?? null,
      booking_mode: rp.booking_mode,
      age_brackets: rp.age_brackets.map((b) => ({ code: b.code, label: b.label, min_age: b.min_age, max_age: b.max_age, price: money(toMinor(b.price)) })),
      min_travelers: rp.min_travelers,
      max_travelers: rp.max_travelers,
      cancellation_policy: rp.cancellation_policy,
      schedule:
        rp.booking_mode === 'SCHEDULED'
          ? { weekdays: rp.schedule.weekdays, start_times: rp.schedule.start_times, capacity_per_departure: rp.schedule.capacity_per_departure }
          : { weekdays: rp.schedule.weekdays, daily_capacity: rp.schedule.daily_capacity },
      booking_window_days: bookingWindowDays(rp),
    })),
  };
}
