import type { Env } from '../kernel/tenant';

export const REVIEWABLE_TYPES = ['EXPERIENCE', 'TRIP', 'AGENCY'] as const;
export type ReviewableType = (typeof REVIEWABLE_TYPES)[number];
export type ReviewStatus = 'VISIBLE' | 'HIDDEN' | 'DELETED';
export const MODERATION_ACTIONS = ['HIDDEN', 'RESTORED', 'DELETED'] as const;
export type ModerationAction = (typeof MODERATION_ACTIONS)[number];

export interface ReviewPhoto {
  file_id: string | null;
  /** The served object (photos/...), or a full URL for consumer-site photos. */
  object_key?: string;
  /** Its thumbnail (photos/...-thumb...); absent for consumer-site photos and photos accepted before thumbnails existed. */
  thumbnail_key?: string;
  url?: string;
}

export interface ReviewAbout {
  name: string;
  slug: string | null;
}

export interface ReviewRecord {
  id: string;
  space: string;
  source: 'CONSUMER' | 'PARTNER';
  reviewable_type: ReviewableType;
  reviewable_id: string;
  rating: number;
  title: string | null;
  comment: string;
  author_name: string;
  author_avatar: string | null;
  verified_booking: boolean;
  helpful_count: number;
  photos: ReviewPhoto[];
  agency_reply: string | null;
  agency_replied_at: string | null;
  status: ReviewStatus;
  moderated_at: string | null;
  created_at: string;
  updated_at: string;
  /** Optimistic lock: each change is conditioned on the version it read. */
  version: number;
  /**
   * What it is about, by name: the adventure's title and slug, or the agency's name (slug null). Kept when the
   * review is stored (a review has only the reviewable's id, and the catalog has no lookup by id); absent on
   * reviews stored before.
   */
  about?: ReviewAbout;
  /** Partner reviews: who posted it, for which booking. */
  partner_id?: string;
  env?: Env;
  booking?: { booking_number: string; booking_id: string; partner_reference: string };
}

/** What a partner gives for a new review; the rest starts the same for every one. */
export type NewPartnerReview = Pick<
  ReviewRecord,
  'id' | 'space' | 'reviewable_type' | 'reviewable_id' | 'rating' | 'title' | 'comment' | 'author_name' | 'photos' | 'partner_id' | 'env' | 'booking' | 'about'
>;

/** A partner review as POST /reviews stores it: VISIBLE, a verified booking, no reply, version 1. */
export function newPartnerReview(fields: NewPartnerReview, at: string): ReviewRecord {
  return {
    ...fields,
    source: 'PARTNER',
    author_avatar: null,
    verified_booking: true,
    helpful_count: 0,
    agency_reply: null,
    agency_replied_at: null,
    status: 'VISIBLE',
    moderated_at: null,
    created_at: at,
    updated_at: at,
    version: 1,
  };
}
