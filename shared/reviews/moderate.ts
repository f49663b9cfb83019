import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { catalogKeys } from '../catalog/keys';
import { dataTable, type Seal, unsealed } from '../db/client';
import { isConditionFailed } from '../db/errors';
import { recordEvent } from '../events/record';
import type { EventRef } from '../events/types';
import { unattachedExpiry } from '../files/config';
import { fileStore } from '../files/store';
import { ApiError, notFound } from '../kernel/errors';
import { countEvent } from '../kernel/metrics';
import type { Env } from '../kernel/tenant';
import { publishEvents } from '../webhooks/queue';
import { reviewKeys } from './keys';
import type { ModerationAction, ReviewRecord } from './model';
import { moderate, ratingDelta } from './rules';
import { reviewStore } from './store';
import { commitWithRetry, foldRating } from './write';

/**
 * The copy of a review the operators act on: the production one (a consumer
 * review in PROD, a live or sandbox partner review); snapshot clones of
 * consumer reviews are never moderated (the next refresh clones the change).
 */
export async function moderatedCopy(id: string): Promise<ReviewRecord> {
  const r = (await reviewStore.copies(id)).find((c) => !catalogKeys.isSnapshot(c.space));
  if (!r) throw notFound('Review', id);
  return r;
}

/**
 * HIDDEN, RESTORED or DELETED, as the spec defines them. The review, its
 * rating aggregate and, for a review tied to a partner's booking, its
 * review.moderated event (to that partner only) commit in one transaction.
 * Consumer-site reviews never emit it. A deleted review keeps no content and
 * answers 404; its photos are detached and expire.
 */
export async function moderateReview(id: string, action: ModerationAction, seal: Seal<ReviewRecord> = unsealed, now = new Date(), pick = moderatedCopy) {
  let result: { review: ReviewRecord; event_id: string | null; event_ref?: EventRef } | undefined;
  let rated = false;
  await commitWithRetry(async () => {
    const before = await pick(id);
    const status = moderate(before.status, action);
    if (!status) {
      throw new ApiError('review.moderation.invalid', `Review ${id} is ${before.status}: ${action} does not apply.`, { status: before.status, action });
    }
    const at = now.toISOString();
    const deleted = status === 'DELETED';
    const after: ReviewRecord = {
      ...before,
      ...(deleted ? { title: null, comment: '', author_name: '', author_avatar: null, photos: [], agency_reply: null, agency_replied_at: null } : {}),
      status,
      moderated_at: at,
      updated_at: at,
      version: before.version + 1,
    };
    const expiresAt = unattachedExpiry(now);
    const detached = deleted ? before.photos.filter((p) => p.file_id).map((p) => fileStore.detach(p.file_id!, id, expiresAt)) : [];
    const rating = reviewStore.rate(after.space, after.reviewable_id, ratingDelta(before, after), { reviewId: before.id, version: after.version });
    rated = rating !== undefined;
    const event =
      before.source === 'PARTNER' && before.booking && before.partner_id && before.env
        ? recordEvent(
            before.partner_id,
            before.env,
            'review.moderated',
            {
              review_id: before.id,
              reviewable_type: before.reviewable_type,
              reviewable_id: before.reviewable_id,
              booking_id: before.booking.booking_id,
              booking_number: before.booking.booking_number,
              partner_reference: before.booking.partner_reference,
              action,
              moderated_at: at,
            },
            now,
          )
        : undefined;
    result = { review: after, event_id: event?.event.id ?? null, event_ref: event?.ref };
    return {
      named: { review: reviewStore.replace(after, before.version) },
      extra: [...(rating ? [rating] : []), ...detached, ...(event ? [event.item] : [])],
      guards: seal.items(after),
      onRefused: () => undefined,
    };
  });
  if (rated) await foldRating(result!.review.space, result!.review.reviewable_id);
  if (result!.event_ref) await publishEvents([result!.event_ref]);
  countEvent('ReviewsModerated', envOf(result!.review));
  return { review: result!.review, event_id: result!.event_id };
}

const envOf = (r: ReviewRecord): Env => r.env ?? 'live';

/** The agency's public reply (operators): set or replaced; a deleted review cannot take one. */
export async function replyToReview(id: string, reply: string, now = new Date()): Promise<ReviewRecord> {
  const r = await moderatedCopy(id);
  try {
    await dataTable.client.send(
      new UpdateCommand({
        TableName: dataTable.name(),
        Key: reviewKeys.review(r.id, r.space),
        UpdateExpression: 'SET agency_reply = :t, agency_replied_at = :at, updated_at = :at, version = version + :one',
        ConditionExpression: '#s <> :deleted',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':t': reply, ':at': now.toISOString(), ':one': 1, ':deleted': 'DELETED' },
      }),
    );
  } catch (e) {
    if (isConditionFailed(e)) throw notFound('Review', id);
    throw e;
  }
  return { ...r, agency_reply: reply, agency_replied_at: now.toISOString(), version: r.version + 1 };
}
