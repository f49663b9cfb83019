import type { z } from 'zod';
import { photoUrl } from '../files/config';
import type { ReviewRecord } from './model';
import type { Review } from './schemas';

export type ReviewView = z.input<typeof Review>;

export function reviewView(r: ReviewRecord): ReviewView {
  const urls = r.photos.map((p) => p.url ?? photoUrl(p.object_key!));
  const thumbnails = r.photos.map((p, i) => (p.thumbnail_key ? photoUrl(p.thumbnail_key) : urls[i]!));
  return {
    id: r.id,
    reviewable_type: r.reviewable_type,
    reviewable_id: r.reviewable_id,
    reviewable_name: r.about?.name ?? null,
    reviewable_slug: r.about?.slug ?? null,
    rating: r.rating,
    title: r.title,
    comment: r.comment,
    author_name: r.author_name,
    author_avatar: r.author_avatar,
    verified_booking: r.verified_booking,
    helpful_count: r.helpful_count,
    photo_urls: urls.length ? urls : null,
    photo_thumbnail_urls: thumbnails.length ? thumbnails : null,
    agency_reply: r.agency_reply,
    agency_replied_at: r.agency_replied_at,
    created_at: r.created_at,
    moderation_status: r.status === 'HIDDEN' ? 'HIDDEN' : 'VISIBLE',
    moderated_at: r.moderated_at,
  };
}
