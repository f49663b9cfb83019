import { eventIdFor } from '../events/record';
import type { ModerationAction, ReviewableType, ReviewRecord, ReviewStatus } from './model';

/** An adventure of a day or more is a TRIP, anything shorter an EXPERIENCE. */
export const TRIP_MIN_MINUTES = 24 * 60;
export const kindOf = (durationMinutes: number): 'EXPERIENCE' | 'TRIP' => (durationMinutes >= TRIP_MIN_MINUTES ? 'TRIP' : 'EXPERIENCE');
/** The kind in a sentence: `an experience`, `a trip`. */
export const kindInWords = (kind: 'EXPERIENCE' | 'TRIP'): string => (kind === 'TRIP' ? 'a trip' : 'an experience');

export const MAX_PHOTOS = 10;

/** The stable UUID of a booking in review.moderated (bookings are named by number; this id is derived from it and never changes). */
export const bookingIdOf = (bookingNumber: string) => eventIdFor('booking', bookingNumber);

/** The public display name of a traveler: first name and the initial of the last name. */
export function displayName(first: string, last: string): string {
  const initial = last.trim().charAt(0);
  return initial ? `${first.trim()} ${initial.toUpperCase()}.` : first.trim();
}

/** The status a moderation action leads to from `from`, or undefined if it does not apply. */
export function moderate(from: ReviewStatus, action: ModerationAction): ReviewStatus | undefined {
  if (from === 'DELETED') return undefined;
  if (action === 'HIDDEN') return from === 'VISIBLE' ? 'HIDDEN' : undefined;
  if (action === 'RESTORED') return from === 'HIDDEN' ? 'VISIBLE' : undefined;
  return 'DELETED';
}

/** What a change does to the rating aggregate: only visible reviews count. */
export function ratingDelta(
  before: Pick<ReviewRecord, 'status' | 'rating'> | undefined,
  after: Pick<ReviewRecord, 'status' | 'rating'>,
): { sum: number; count: number } {
  const weight = (r: Pick<ReviewRecord, 'status' | 'rating'> | undefined) => (r?.status === 'VISIBLE' ? { sum: r.rating, count: 1 } : { sum: 0, count: 0 });
  const a = weight(before);
  const b = weight(after);
  return { sum: b.sum - a.sum, count: b.count - a.count };
}

/** The average shown on the catalog: two decimals, 0 without reviews. */
export const average = (sum: number, count: number) => (count > 0 ? Math.round((sum / count) * 100) / 100 : 0);

/** The reviewable a booking's review is about, for a reviewable type. */
export function reviewableOf(
  type: ReviewableType,
  adventure: { id: string; duration_minutes: number; agency: { id: string } },
): { ok: true; id: string } | { ok: false; expected: 'EXPERIENCE' | 'TRIP' } {
  if (type === 'AGENCY') return { ok: true, id: adventure.agency.id };
  const kind = kindOf(adventure.duration_minutes);
  return kind === type ? { ok: true, id: adventure.id } : { ok: false, expected: kind };
}
