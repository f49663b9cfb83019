import { bookingPartitions } from '../bookings/keys';
import { catalogPartitions } from '../catalog/keys';
import { dynamoLine } from '../db/grants';
import { eventPartitions } from '../events/keys';
import { filePartitions } from '../files/keys';
import { defineRoutes } from '../http/route-def';
import { reviewPartitions } from './keys';
import { CreateReviewBody, ModerateReviewBody, Review, ReviewIdParams, ReviewListQuery, ReviewPage, UpdateReviewBody } from './schemas';

/**
 * A review's spaces are its catalog's (catalogScopes), whose sandbox snapshot head and pointer are read once a
 * process: the local stack runs every function in one process, where another function may have read them first.
 */
const SCOPES_CACHED = {
  [dynamoLine('data', 'GetItem', catalogPartitions.content)]: "a sandbox's catalog snapshot and pointer are read once a process (catalogScopes' cache)",
};

/** Reviews: read the public reviews, post and edit your customers' reviews, and the sandbox moderation helper. */
export const reviewRoutes = defineRoutes({
  listReviews: {
    method: 'GET',
    path: '/v1/reviews',
    handler: 'functions/reviews/list.ts',
    access: 'key',
    scope: 'reviews:read',
    tag: 'Reviews',
    photoUrls: true,
    summary: 'Publicly visible reviews, newest first',
    description:
      'Consumer-site reviews and partners’ reviews of your environment, keyset-paginated. Filter by reviewable_type and reviewable_id, by adventure slug, ' +
      'and by minimum rating. Hidden and deleted reviews are never listed, except with posted_by_you=true: the reviews you posted, HIDDEN ones included.',
    request: { query: ReviewListQuery },
    responses: { 200: { description: 'A page of reviews.', schema: ReviewPage } },
    /*
     * The spaces (the catalog's), an adventure filter's adventure, the visible reviews of a space (gsi1) or of one reviewable (gsi2);
     * posted_by_you: the partner's own rows (RVWOWN#) and their reviews.
     */
    dynamo: {
      data: { GetItem: [catalogPartitions.content], Query: [reviewPartitions.own], BatchGetItem: [reviewPartitions.review], queryIndexes: ['gsi1', 'gsi2'] },
    },
  },
  getReview: {
    method: 'GET',
    path: '/v1/reviews/{id}',
    handler: 'functions/reviews/get.ts',
    access: 'key',
    scope: 'reviews:read',
    tag: 'Reviews',
    photoUrls: true,
    summary: 'One review',
    description: 'A visible review, or a HIDDEN one you posted (moderation_status shows it). Deleted reviews answer 404.',
    request: { params: ReviewIdParams },
    responses: { 200: { description: 'The review.', schema: Review } },
    // Its copies in the tenant's spaces.
    dynamo: { data: { GetItem: [catalogPartitions.content], BatchGetItem: [reviewPartitions.review] } },
    untested: SCOPES_CACHED,
  },
  createReview: {
    method: 'POST',
    path: '/v1/reviews',
    handler: 'functions/reviews/create.ts',
    access: 'key',
    scope: 'reviews:write',
    tag: 'Reviews',
    photoUrls: true,
    summary: "Post a review for a customer's COMPLETED booking",
    description:
      'About the booked adventure (reviewable_type EXPERIENCE or TRIP, by its duration) or its agency (AGENCY); reviewable_id is derived from the booking. ' +
      'One review per booking and reviewable (409 review.already_exists). photo_ids: READY files of yours from POST /files.',
    request: { body: CreateReviewBody },
    responses: { 201: { description: 'The review, verified_booking true.', schema: Review } },
    errors: [
      'review.booking.not_found',
      'review.booking.not_completed',
      'review.reviewable.mismatch',
      'review.already_exists',
      'review.photo.not_found',
      'review.photo.wrong_purpose',
      'review.photo.not_ready',
      'review.photo.in_use',
      'review.write.conflict',
    ],
    /*
     * The booking and its adventure, the photos (FILE#); the review, its once-per-booking marker (RVWBOOK#), its row in
     * the partner's own list (RVWOWN#), its photos attached and its rating delta (RATINGD#), then the fold of the deltas into the aggregate (RATING#).
     */
    dynamo: {
      data: {
        GetItem: [bookingPartitions.booking, catalogPartitions.content],
        BatchGetItem: [filePartitions.file, reviewPartitions.rating],
        Query: [reviewPartitions.ratingDelta],
        PutItem: [reviewPartitions.review, reviewPartitions.bookingReviewable, reviewPartitions.ratingDelta, reviewPartitions.own],
        UpdateItem: [filePartitions.file, reviewPartitions.rating],
        DeleteItem: [reviewPartitions.ratingDelta],
      },
    },
  },
  updateReview: {
    method: 'PUT',
    path: '/v1/reviews/{id}',
    handler: 'functions/reviews/update.ts',
    access: 'key',
    scope: 'reviews:write',
    tag: 'Reviews',
    photoUrls: true,
    summary: 'Edit a review you posted',
    description:
      'Only the fields present change. photo_ids replaces the photo set (at most 10). A HIDDEN review can be edited and stays HIDDEN until the operators restore it. ' +
      'Reviews of others, and deleted ones, answer 404.',
    request: { params: ReviewIdParams, body: UpdateReviewBody },
    responses: { 200: { description: 'The review updated.', schema: Review } },
    errors: ['review.photo.not_found', 'review.photo.wrong_purpose', 'review.photo.not_ready', 'review.photo.in_use', 'review.write.conflict'],
    // The review over the version read, its photos attached or detached, its rating delta and the fold.
    dynamo: {
      data: {
        GetItem: [catalogPartitions.content],
        BatchGetItem: [reviewPartitions.review, filePartitions.file, reviewPartitions.rating],
        Query: [reviewPartitions.ratingDelta],
        PutItem: [reviewPartitions.review, reviewPartitions.ratingDelta],
        UpdateItem: [filePartitions.file, reviewPartitions.rating],
        DeleteItem: [reviewPartitions.ratingDelta],
      },
    },
    untested: SCOPES_CACHED,
  },
  moderateReviewTestHelper: {
    method: 'POST',
    path: '/v1/test-helpers/reviews/{id}/moderate',
    handler: 'functions/reviews/test-moderate.ts',
    access: 'key',
    scope: 'reviews:write',
    tag: 'Test helpers',
    photoUrls: true,
    summary: 'Sandbox: moderate one of your sandbox reviews as the operators would',
    description: 'HIDDEN, RESTORED or DELETED, with review.moderated; 409 review.moderation.invalid when the action does not apply. Sandbox keys only.',
    request: { params: ReviewIdParams, body: ModerateReviewBody },
    responses: { 200: { description: 'The review after the action (a DELETED review keeps no content).', schema: Review } },
    errors: ['review.moderation.invalid', 'review.write.conflict'],
    sandboxOnly: true,
    publishesEvents: true,
    // As updateReview, with review.moderated; a deletion detaches the review's photos.
    dynamo: {
      data: {
        GetItem: [catalogPartitions.content],
        BatchGetItem: [reviewPartitions.review, reviewPartitions.rating],
        Query: [reviewPartitions.ratingDelta],
        PutItem: [reviewPartitions.review, reviewPartitions.ratingDelta, eventPartitions.events],
        UpdateItem: [filePartitions.file, reviewPartitions.rating],
        DeleteItem: [reviewPartitions.ratingDelta],
      },
    },
    untested: { ...SCOPES_CACHED, [dynamoLine('data', 'UpdateItem', filePartitions.file)]: 'deleting a review with photos detaches them' },
  },
});
