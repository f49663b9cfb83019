import type { Env } from '../kernel/tenant';

/**
 * Keys of reviews in the data table (docs/architecture.md, "Data model and access patterns", rows "review" to
 * "rating aggregate"). A review lives in a space: the catalog content scope
 * for consumer-site reviews (PROD, cloned into each sandbox snapshot), the
 * inventory of the environment for partners' reviews (LIVE, or SBX#<partner>
 * for a sandbox tenant). A tenant reads its content and inventory spaces.
 */
export const reviewKeys = {
  /** A review in its space (a consumer review has one copy per snapshot, under the same id). */
  review: (id: string, space: string) => ({ pk: `REVIEW#${id}`, sk: space }),
  copiesPartition: (id: string) => `REVIEW#${id}`,
  /** gsi1 (sparse, visible reviews only): a space's reviews, newest first. */
  spacePartition: (space: string) => `RVWS#${space}`,
  /** gsi2 (sparse, visible reviews only): a space's reviews of one reviewable, newest first. */
  reviewablePartition: (space: string, reviewableId: string) => `RVWS#${space}#${reviewableId}`,
  /** Both index sorts: creation instant then id, unique and in time order. */
  sort: (createdAt: string, id: string) => `${createdAt}#${id}`,
  visible: (space: string, reviewableId: string, createdAt: string, id: string) => ({
    gsi1pk: reviewKeys.spacePartition(space),
    gsi1sk: reviewKeys.sort(createdAt, id),
    gsi2pk: reviewKeys.reviewablePartition(space, reviewableId),
    gsi2sk: reviewKeys.sort(createdAt, id),
  }),
  /**
   * A partner's own reviews in one environment, newest first: a row per review (its id and space), put in the
   * review's own transaction, so GET /reviews?posted_by_you=true reads its own writes (strongly consistent) and finds
   * the HIDDEN ones, which the indexes above leave out. Never changes: the review's record says its status.
   */
  ownPartition: (partnerId: string, env: Env) => `RVWOWN#${partnerId}#${env}`,
  ownRow: (partnerId: string, env: Env, createdAt: string, id: string) => ({ pk: reviewKeys.ownPartition(partnerId, env), sk: reviewKeys.sort(createdAt, id) }),
  /** One review per booking and reviewable. */
  bookingReviewable: (bookingNumber: string, reviewableId: string) => ({ pk: `RVWBOOK#${bookingNumber}#${reviewableId}`, sk: 'RVWBOOK' }),
  /** The rating aggregate (sum and count of visible reviews) of a reviewable in a space. */
  ratingPartition: (space: string) => `RATING#${space}`,
  rating: (space: string, reviewableId: string) => ({ pk: reviewKeys.ratingPartition(space), sk: reviewableId }),
  /**
   * A change's contribution to a rating, not yet folded into the aggregate: an item of the change's own (the
   * review's id and new version), so two reviews of one reviewable never write the same item.
   */
  ratingDeltaPartition: (space: string) => `RATINGD#${space}`,
  ratingDeltaPrefix: (reviewableId: string) => `${reviewableId}#`,
  ratingDelta: (space: string, reviewableId: string, reviewId: string, version: number) => ({
    pk: reviewKeys.ratingDeltaPartition(space),
    sk: `${reviewableId}#${reviewId}#${String(version).padStart(6, '0')}`,
  }),
};

/** The reviews' partitions, as dynamodb:LeadingKeys patterns (the route table's `dynamo`, shared/db/grants.ts). */
export const reviewPartitions = {
  review: 'REVIEW#*',
  bookingReviewable: 'RVWBOOK#*',
  rating: 'RATING#*',
  ratingDelta: 'RATINGD#*',
  own: 'RVWOWN#*',
};
