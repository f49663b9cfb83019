import { randomUUID } from 'node:crypto';
import { bookingStore } from '../bookings/store';
import { catalogStore } from '../catalog/store';
import type { Seal } from '../db/client';
import { tenantNow } from '../kernel/clock';
import { ApiError } from '../kernel/errors';
import { countEvent } from '../kernel/metrics';
import type { Tenant } from '../kernel/tenant';
import { newPartnerReview, type ReviewableType, type ReviewRecord } from './model';
import { photoChanges, photoNames, photoRefusal, photosFor } from './photos';
import { aboutOf, bookingIdOf, displayName, kindInWords, ratingDelta, reviewableOf } from './rules';
import { reviewSpaces } from './spaces';
import { reviewStore } from './store';
import { commitWithRetry, foldRating } from './write';

export interface NewReview {
  booking_number: string;
  reviewable_type: ReviewableType;
  reviewable_id?: string;
  rating: number;
  title?: string;
  comment: string;
  author_name?: string;
  photo_ids?: string[];
}

const bookingField = (message: string) => ({ errors: [{ field: 'booking_number', location: 'body' as const, message }] });

/**
 * A review of a COMPLETED booking of the tenant, about its adventure
 * (EXPERIENCE or TRIP, by the adventure's duration) or its agency. One per
 * booking and reviewable. The review, its once-marker, the rating aggregate
 * and its photos commit in one transaction.
 */
export async function createReview(t: Tenant, input: NewReview, seal: Seal<ReviewRecord>, now = tenantNow(t)): Promise<ReviewRecord> {
  const booking = await bookingStore.get(input.booking_number);
  if (!booking || booking.partner_id !== t.partnerId || booking.env !== t.env) {
    throw new ApiError('review.booking.not_found', `Booking ${input.booking_number} does not exist for you in this environment.`, bookingField('not found'));
  }
  if (booking.status !== 'COMPLETED') {
    throw new ApiError('review.booking.not_completed', `Booking ${booking.booking_number} is ${booking.status}: only a COMPLETED booking can be reviewed.`, {
      ...bookingField(`status ${booking.status}`),
      status: booking.status,
    });
  }
  const spaces = await reviewSpaces(t);
  const adventure = await catalogStore.adventure(spaces.content, booking.adventure.slug);
  if (!adventure)
    throw new ApiError(
      'review.booking.not_found',
      `The adventure of booking ${booking.booking_number} is no longer in the catalog.`,
      bookingField('adventure gone'),
    );
  const reviewable = reviewableOf(input.reviewable_type, adventure);
  if (!reviewable.ok) {
    throw new ApiError(
      'review.reviewable.mismatch',
      `The booked adventure is ${kindInWords(reviewable.expected)}: review it as reviewable_type ${reviewable.expected} (or AGENCY).`,
      {
        errors: [{ field: 'reviewable_type', location: 'body', message: 'does not match the booked adventure', expected: `${reviewable.expected} or AGENCY` }],
      },
    );
  }
  if (input.reviewable_id !== undefined && input.reviewable_id !== reviewable.id) {
    throw new ApiError(
      'review.reviewable.mismatch',
      `reviewable_id does not match the booking's ${input.reviewable_type === 'AGENCY' ? 'agency' : 'adventure'}.`,
      {
        errors: [{ field: 'reviewable_id', location: 'body', message: 'does not match the booking', expected: reviewable.id }],
      },
    );
  }
  const id = randomUUID();
  const { photos, files } = await photosFor(t, input.photo_ids ?? [], id);
  const review = newPartnerReview(
    {
      id,
      space: spaces.own,
      reviewable_type: input.reviewable_type,
      reviewable_id: reviewable.id,
      rating: input.rating,
      title: input.title ?? null,
      comment: input.comment,
      author_name: input.author_name ?? displayName(booking.contact.first_name, booking.contact.last_name),
      photos,
      partner_id: t.partnerId,
      env: t.env,
      about: aboutOf(input.reviewable_type, adventure),
      booking: { booking_number: booking.booking_number, booking_id: bookingIdOf(booking.booking_number), partner_reference: booking.partner_reference },
    },
    now.toISOString(),
  );
  const rating = reviewStore.rate(review.space, review.reviewable_id, ratingDelta(undefined, review), { reviewId: id, version: review.version });
  const attach = photoChanges([], photos, id, files, now);
  await commitWithRetry(async () => ({
    named: { review: reviewStore.create(review), once: reviewStore.once(booking.booking_number, reviewable.id, id), ...photoNames(attach) },
    extra: [reviewStore.ownRow(review), ...(rating ? [rating] : [])],
    guards: seal.items(review),
    onRefused: (failed) => {
      if (failed('once')) {
        return new ApiError(
          'review.already_exists',
          `Booking ${booking.booking_number} already has a review of this ${input.reviewable_type === 'AGENCY' ? 'agency' : 'adventure'}.`,
          {
            booking_number: booking.booking_number,
            reviewable_id: reviewable.id,
          },
        );
      }
      return photoRefusal(failed, attach);
    },
  }));
  if (rating) await foldRating(review.space, review.reviewable_id);
  countEvent('ReviewsCreated', t.env);
  return review;
}
