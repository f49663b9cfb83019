import type { Seal } from '../db/client';
import { tenantNow } from '../kernel/clock';
import { notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import type { ReviewRecord } from './model';
import { photoChanges, photoNames, photoRefusal, photosFor } from './photos';
import { ratingDelta } from './rules';
import { reviewSpaces } from './spaces';
import { reviewStore } from './store';
import { commitWithRetry, foldRating } from './write';

export interface ReviewEdit {
  rating?: number;
  title?: string;
  comment?: string;
  photo_ids?: string[];
}

/** The tenant's own review (posted by its partner in its environment), not deleted; 404 otherwise. */
export async function ownReview(t: Tenant, id: string): Promise<ReviewRecord> {
  const { own } = await reviewSpaces(t);
  const [r] = await reviewStore.inSpaces(id, [own]);
  if (!r || r.status === 'DELETED' || r.partner_id !== t.partnerId || r.env !== t.env) throw notFound('Review', id);
  return r;
}

/**
 * PUT /reviews/{id}: only the fields present change. A HIDDEN review can be
 * edited and stays HIDDEN (only the operators restore it), and its rating
 * counts in the aggregates only once restored. The review, the aggregate and
 * the photo set change in one transaction, over the version that was read.
 */
export async function editReview(t: Tenant, id: string, edit: ReviewEdit, seal: Seal<ReviewRecord>, now = tenantNow(t)): Promise<ReviewRecord> {
  let result: ReviewRecord | undefined;
  let rated = false;
  await commitWithRetry(async () => {
    const before = await ownReview(t, id);
    const chosen = edit.photo_ids !== undefined ? await photosFor(t, edit.photo_ids, id) : undefined;
    const after: ReviewRecord = {
      ...before,
      ...(edit.rating !== undefined ? { rating: edit.rating } : {}),
      ...(edit.title !== undefined ? { title: edit.title } : {}),
      ...(edit.comment !== undefined ? { comment: edit.comment } : {}),
      ...(chosen ? { photos: chosen.photos } : {}),
      updated_at: now.toISOString(),
      version: before.version + 1,
    };
    const changes = chosen ? photoChanges(before.photos, after.photos, id, chosen.files, now) : [];
    const rating = reviewStore.rate(after.space, after.reviewable_id, ratingDelta(before, after), { reviewId: id, version: after.version });
    result = after;
    rated = rating !== undefined;
    return {
      named: { review: reviewStore.replace(after, before.version), ...photoNames(changes) },
      extra: rating ? [rating] : [],
      guards: seal.items(after),
      // A review changed meanwhile is read again; a photo taken meanwhile is refused.
      onRefused: (failed) => (failed('review') ? undefined : photoRefusal(failed, changes)),
    };
  });
  if (rated) await foldRating(result!.space, result!.reviewable_id);
  return result!;
}
