import { catalogStore } from '../catalog/store';
import { ApiError, notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import { reviewKeys } from './keys';
import type { ReviewableType, ReviewRecord } from './model';
import { kindInWords, kindOf } from './rules';
import { reviewSpaces } from './spaces';
import { type ReviewFilter, reviewStore } from './store';

/**
 * One review: a visible one of the tenant's spaces, or a hidden one its own
 * partner posted (with its moderation status). Deleted reviews are gone.
 */
export async function getReview(t: Tenant, id: string): Promise<ReviewRecord> {
  const spaces = await reviewSpaces(t);
  const r = (await reviewStore.inSpaces(id, spaces.all)).find((c) => c.status !== 'DELETED');
  if (!r) throw notFound('Review', id);
  const own = r.partner_id === t.partnerId && r.env === t.env;
  if (r.status !== 'VISIBLE' && !own) throw notFound('Review', id);
  return r;
}

export interface ReviewListQuery {
  limit: number;
  reviewable_type?: ReviewableType;
  reviewable_id?: string;
  adventure?: string;
  min_rating?: number;
  /** 'true': only the reviews the tenant posted, HIDDEN ones included. */
  posted_by_you?: 'true';
}

const invalid = (field: string, message: string, expected?: string) =>
  new ApiError('validation.field.invalid', message, { errors: [{ field, location: 'query', message, ...(expected ? { expected } : {}) }] });

/** The filter of a list query: an adventure slug names its adventure (or, with AGENCY, its agency). */
async function filterOf(content: string, q: ReviewListQuery): Promise<ReviewFilter> {
  const f: ReviewFilter = { reviewableId: q.reviewable_id, reviewableType: q.reviewable_type, minRating: q.min_rating };
  if (q.adventure === undefined) return f;
  const a = await catalogStore.adventure(content, q.adventure);
  if (!a) throw invalid('adventure', `No adventure '${q.adventure}' in your catalog.`);
  const id = q.reviewable_type === 'AGENCY' ? a.agency.id : a.id;
  if (q.reviewable_id !== undefined && q.reviewable_id !== id) throw invalid('reviewable_id', 'reviewable_id and adventure name different things.', id);
  if (q.reviewable_type !== undefined && q.reviewable_type !== 'AGENCY' && q.reviewable_type !== kindOf(a.duration_minutes)) {
    throw invalid(
      'reviewable_type',
      `'${q.adventure}' is ${kindInWords(kindOf(a.duration_minutes))}: filter with reviewable_type ${kindOf(a.duration_minutes)} (or AGENCY).`,
      `${kindOf(a.duration_minutes)} or AGENCY`,
    );
  }
  return { ...f, reviewableId: id };
}

/**
 * The publicly visible reviews of the tenant's spaces, newest first: one
 * keyset Query per space (consumer-site and partners' reviews), merged. The
 * cursor is the sort key of the last review shown. posted_by_you: the
 * tenant's own reviews instead, from their rows, hidden ones included.
 */
export async function listReviews(t: Tenant, q: ReviewListQuery, after?: string): Promise<{ items: ReviewRecord[]; next?: string }> {
  const spaces = await reviewSpaces(t);
  const f = await filterOf(spaces.content, q);
  const pages = q.posted_by_you
    ? [await reviewStore.ownPage(t.partnerId, t.env, f, q.limit, after)]
    : await Promise.all(spaces.all.map((s) => reviewStore.page(s, f, q.limit, after)));
  const sortOf = (r: ReviewRecord) => reviewKeys.sort(r.created_at, r.id);
  const merged = pages.flatMap((p) => p.items).sort((a, b) => (sortOf(a) < sortOf(b) ? 1 : -1));
  const items = merged.slice(0, q.limit);
  const more = merged.length > q.limit || pages.some((p) => p.hasMore);
  return { items, next: more && items.length ? sortOf(items.at(-1)!) : undefined };
}
