import * as z from 'zod';
import { PROD } from '../catalog/keys';
import { catalogStore } from '../catalog/store';
import { REVIEWABLE_TYPES, type ReviewAbout, type ReviewRecord } from './model';
import { aboutIndex, type NamedAdventure } from './rules';
import { reviewStore } from './store';

const withAbout = (about: ReviewAbout | undefined) => (about ? { about } : {});

/** The consumer-site review file (data/reviews/consumer.json): reviews from the consumer site, some tied to consumer bookings. */
export const ConsumerReviewFile = z.object({
  reviews: z.array(
    z.object({
      id: z.uuid(),
      reviewable_type: z.enum(REVIEWABLE_TYPES),
      reviewable_id: z.uuid(),
      rating: z.number().int().min(1).max(5),
      title: z.string().max(200).nullable(),
      comment: z.string().min(10).max(4000),
      author_name: z.string().min(1),
      author_avatar: z.url().nullable(),
      verified_booking: z.boolean(),
      helpful_count: z.number().int().min(0),
      photo_urls: z.array(z.url()).max(10).nullable(),
      agency_reply: z.string().nullable(),
      agency_replied_at: z.iso.datetime().nullable(),
      created_at: z.iso.datetime(),
    }),
  ),
});

const totalsOf = (reviews: ReviewRecord[]) => {
  const totals = new Map<string, { sum: number; count: number }>();
  for (const r of reviews.filter((x) => x.status === 'VISIBLE')) {
    const t = totals.get(r.reviewable_id) ?? { sum: 0, count: 0 };
    t.sum += r.rating;
    t.count++;
    totals.set(r.reviewable_id, t);
  }
  return totals;
};

/**
 * Imports consumer-site reviews into production (upsert by id), then sets the
 * rating aggregates of the reviewables it touched from their visible reviews
 * (a Query per reviewable), once the index shows what it loaded. Run it before a
 * sandbox snapshot is taken: the snapshot clones them from the index.
 */
export async function importConsumerReviews(raw: unknown, catalog?: { adventures: NamedAdventure[] }): Promise<{ reviews: number; reviewables: number }> {
  const file = ConsumerReviewFile.parse(raw);
  // Each review keeps the name of what it is about: from the catalog file about to be imported, or the one in production.
  const about = aboutIndex(catalog?.adventures ?? (await catalogStore.allAdventures(PROD)));
  const reviews: ReviewRecord[] = file.reviews.map(({ photo_urls, ...r }) => ({
    ...r,
    ...withAbout(about(r.reviewable_type, r.reviewable_id)),
    space: PROD,
    source: 'CONSUMER',
    photos: (photo_urls ?? []).map((url) => ({ file_id: null, url })),
    status: 'VISIBLE',
    moderated_at: null,
    updated_at: r.created_at,
    version: 1,
  }));
  await reviewStore.load(reviews);
  // The recount below and a snapshot's clone read the space's index, which lags its table.
  await untilIndexed(PROD, reviews);
  const touched = [...new Set(reviews.map((r) => r.reviewable_id))];
  const totals = new Map<string, { sum: number; count: number }>();
  for (const id of touched) totals.set(id, await reviewStore.recount(PROD, id));
  await reviewStore.setRatings(PROD, totals);
  return { reviews: reviews.length, reviewables: touched.length };
}

/** The fields of a consumer review the index must show as loaded (an upsert may change them). */
const shown = (r: ReviewRecord) => JSON.stringify([r.rating, r.title, r.comment, r.helpful_count, r.agency_reply, r.photos.length]);

/** Resolves once the space's index shows each of `reviews` as loaded; throws after `timeoutMs` (an index lags its table, usually by well under a second). */
async function untilIndexed(space: string, reviews: ReviewRecord[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const indexed = new Map((await reviewStore.allVisible(space)).map((r) => [r.id, shown(r)]));
    const missing = reviews.filter((r) => indexed.get(r.id) !== shown(r)).length;
    if (!missing) return;
    if (Date.now() > deadline) throw new Error(`${missing} imported review(s) still missing from the index after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Clones the visible consumer reviews of one content scope into a new snapshot scope, with their aggregates. */
export async function cloneConsumerReviews(from: string, to: string, load: (reviews: ReviewRecord[]) => Promise<void> = reviewStore.load): Promise<number> {
  const reviews = (await reviewStore.allVisible(from)).filter((r) => r.source === 'CONSUMER').map((r) => ({ ...r, space: to }));
  await load(reviews);
  await reviewStore.setRatings(to, totalsOf(reviews));
  return reviews.length;
}

/** Loads reviews into a space and sets its aggregates to what they sum to (the bench; an empty space). */
export async function loadReviews(space: string, reviews: ReviewRecord[]): Promise<void> {
  await reviewStore.load(reviews);
  await reviewStore.setRatings(space, totalsOf(reviews));
}
