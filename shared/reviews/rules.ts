import { eventIdFor } from '../events/record';
import type { ModerationAction, ReviewAbout, ReviewableType, ReviewRecord, ReviewStatus } from './model';

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
/** An adventure as the catalog (its store, or its import file) names it and its agency. */
export interface NamedAdventure {
  id: string;
  slug: string;
  title: string;
  agency: { id: string; name: string };
}

/** What a review of `type` about this adventure (or its agency) is about, by name. */
export const aboutOf = (type: ReviewableType, a: NamedAdventure): ReviewAbout =>
  type === 'AGENCY' ? { name: a.agency.name, slug: null } : { name: a.title, slug: a.slug };

/** Names by reviewable id, from a catalog's adventures: each adventure's, and each agency's. */
export function aboutIndex(adventures: NamedAdventure[]): (type: ReviewableType, id: string) => ReviewAbout | undefined {
  const byId = new Map<string, NamedAdventure>(adventures.map((a) => [a.id, a]));
  const agencies = new Map<string, NamedAdventure>(adventures.map((a) => [a.agency.id, a]));
  return (type, id) => {
    const a = (type === 'AGENCY' ? agencies : byId).get(id);
    return a && aboutOf(type, a);
  };
}

export function reviewableOf(
  type: ReviewableType,
  adventure: { id: string; duration_minutes: number; agency: { id: string } },
): { ok: true; id: string } | { ok: false; expected: 'EXPERIENCE' | 'TRIP' } {
  if (type === 'AGENCY') return { ok: true, id: adventure.agency.id };
  const kind = kindOf(adventure.duration_minutes);
  return kind === type ? { ok: true, id: adventure.id } : { ok: false, expected: kind };
}
