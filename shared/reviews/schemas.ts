import * as z from 'zod';
import { BOOKING_NUMBER_RE } from '../bookings/rules';
import { PHOTO_DISPLAY_LONG_SIDE, PHOTO_THUMBNAIL_LONG_SIDE } from '../files/config';
import { singleLine } from '../http/bounds';
import { personal, pub } from '../http/data-class';
import { documentedAs, PageMeta, pageQuery } from '../http/schemas';
import { MODERATION_ACTIONS, REVIEWABLE_TYPES } from './model';
import { MAX_PHOTOS } from './rules';

const ReviewableType = z.enum(REVIEWABLE_TYPES).meta({
  id: 'ReviewableType',
  description: 'EXPERIENCE (an adventure shorter than a day), TRIP (a day or more) or AGENCY (its operator)',
  dataClass: 'public',
});
const Rating = pub(z.number().int().min(1).max(5)).describe('1 to 5');
// A traveler's own words: free text that may name people.
const Title = personal(singleLine(z.string()).max(200)).describe('At most 200 characters, one line');
const Comment = personal(z.string().min(10).max(4000)).describe('10 to 4000 characters');
const PhotoIds = z
  .array(pub(z.uuid()))
  .max(MAX_PHOTOS)
  .refine((ids) => new Set(ids).size === ids.length, 'each file at most once')
  .describe(`READY review_photo files of yours (POST /files), at most ${MAX_PHOTOS}, not attached to another review`);

export const Review = z
  .object({
    id: pub(z.uuid()),
    reviewable_type: ReviewableType,
    reviewable_id: pub(z.uuid()).describe('The adventure id for EXPERIENCE and TRIP; the agency id for AGENCY'),
    reviewable_name: pub(z.string())
      .nullable()
      .describe("What the review is about: the adventure's title (EXPERIENCE, TRIP) or the agency's name (AGENCY); null for a review stored without it"),
    reviewable_slug: pub(z.string()).nullable().describe("The adventure's slug (EXPERIENCE, TRIP); null for an agency"),
    rating: pub(z.number().int().min(1).max(5)),
    title: personal(z.string()).nullable(),
    comment: personal(z.string()),
    author_name: personal(z.string()).describe('Traveler display name as shown publicly'),
    author_avatar: personal(z.url()).nullable(),
    verified_booking: pub(z.boolean()).describe('true when tied to a confirmed booking'),
    helpful_count: pub(z.number().int().min(0)),
    // A traveler's photos: personal, even once re-encoded without metadata.
    photo_urls: z
      .array(personal(z.url()))
      .max(MAX_PHOTOS)
      .nullable()
      .describe(`Traveler photos. Uploaded ones are re-encoded without metadata, at most ${PHOTO_DISPLAY_LONG_SIDE} px on their long side`),
    photo_thumbnail_urls: z
      .array(personal(z.url()))
      .max(MAX_PHOTOS)
      .nullable()
      .describe(
        `The same photos in the same order, at most ${PHOTO_THUMBNAIL_LONG_SIDE} px on their long side (a consumer-site photo, which has no thumbnail, repeats its URL)`,
      ),
    agency_reply: personal(z.string()).nullable(),
    agency_replied_at: pub(z.iso.datetime()).nullable(),
    created_at: pub(z.iso.datetime()),
    moderation_status: pub(z.enum(['VISIBLE', 'HIDDEN'])).describe(
      'HIDDEN reviews are shown only to the partner that posted them (GET /reviews/{id}); lists show VISIBLE ones',
    ),
    moderated_at: pub(z.iso.datetime()).nullable(),
  })
  .meta({ id: 'Review' });

export const ReviewPage = z.object({ data: z.array(Review), meta: PageMeta }).meta({ id: 'ReviewPage' });

export const ReviewListQuery = pageQuery.extend({
  reviewable_type: ReviewableType.optional(),
  reviewable_id: pub(z.uuid()).optional(),
  adventure: pub(z.string().regex(/^[a-z0-9-]{1,120}$/))
    .optional()
    .describe("An adventure's slug: its EXPERIENCE or TRIP reviews (with reviewable_type=AGENCY: its agency's)"),
  min_rating: documentedAs(
    { type: 'integer', minimum: 1, maximum: 5 },
    pub(
      z
        .string()
        .regex(/^[1-5]$/, 'an integer from 1 to 5')
        .transform(Number)
        .optional(),
    ).describe('Only reviews rated at least this'),
  ),
  posted_by_you: pub(z.enum(['true'], 'true, or leave it out'))
    .optional()
    .describe(
      'true: only the reviews you posted (POST /reviews) in this environment, newest first, HIDDEN ones included (their moderation_status says so); the other filters apply too. Leave it out for every visible review.',
    ),
});

export const ReviewIdParams = z.object({ id: pub(z.uuid()) });

export const CreateReviewBody = z
  .object({
    booking_number: pub(z.string().min(1).max(40), BOOKING_NUMBER_RE).describe('A COMPLETED booking of yours in this environment'),
    reviewable_type: ReviewableType,
    reviewable_id: pub(z.uuid()).optional().describe('Derived from the booking; if given it must match'),
    rating: Rating,
    title: Title.optional(),
    comment: Comment,
    author_name: personal(singleLine(z.string()))
      .trim()
      .min(1)
      .max(80)
      .optional()
      .describe("Shown publicly, one line; default: the booking contact's first name and last initial"),
    photo_ids: PhotoIds.optional(),
  })
  .strict()
  .meta({ id: 'CreateReviewRequest' });

export const UpdateReviewBody = z
  .object({
    rating: Rating.optional(),
    title: Title.optional(),
    comment: Comment.optional(),
    photo_ids: PhotoIds.optional().describe('Replaces the photo set: files left out are detached (and expire), new ones are attached'),
  })
  .strict()
  .meta({ id: 'UpdateReviewRequest' });

export const ModerateReviewBody = z.object({ action: pub(z.enum(MODERATION_ACTIONS)) }).strict();
