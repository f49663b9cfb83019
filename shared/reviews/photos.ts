import type { TransactItem } from '../db/client';
import { unattachedExpiry } from '../files/config';
import type { FileRecord } from '../files/model';
import { fileStore } from '../files/store';
import { ApiError } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import type { ReviewPhoto } from './model';

/**
 * Checks the files a review is to take: each must exist for the tenant, be a
 * review photo, READY, and free (or already this review's). The refusal names
 * the file. The transaction's conditions hold the same rules against races.
 */
export async function photosFor(t: Tenant, ids: string[], reviewId: string): Promise<{ photos: ReviewPhoto[]; files: FileRecord[] }> {
  const found = await fileStore.getMany(ids);
  const files = ids.map((id) => {
    const f = found.get(id);
    const named = { file_id: id, field: 'photo_ids' };
    if (!f || f.partner_id !== t.partnerId || f.env !== t.env)
      throw new ApiError('review.photo.not_found', `File ${id} does not exist for you in this environment.`, named);
    if (f.purpose !== 'review_photo') throw new ApiError('review.photo.wrong_purpose', `File ${id} is not a review photo.`, { ...named, purpose: f.purpose });
    if (f.status !== 'READY') {
      throw new ApiError(
        'review.photo.not_ready',
        f.status === 'REJECTED'
          ? `File ${id} was rejected (${f.rejection_reason}): upload another photo.`
          : `File ${id} is still ${f.status}: wait until GET /files/${id} shows READY.`,
        { ...named, status: f.status, ...(f.rejection_reason ? { rejection_reason: f.rejection_reason } : {}) },
      );
    }
    if (f.attached_to && f.attached_to !== reviewId) throw new ApiError('review.photo.in_use', `File ${id} is attached to another review.`, named);
    return f;
  });
  return {
    photos: files.map((f) => ({ file_id: f.id, object_key: f.object_key!, ...(f.renditions ? { thumbnail_key: f.renditions.thumbnail.key } : {}) })),
    files,
  };
}

/** The photo set change of an edit: files to attach, files to detach (they expire like any unattached upload). */
export function photoChanges(before: ReviewPhoto[], after: ReviewPhoto[], reviewId: string, files: FileRecord[], now: Date) {
  const had = new Set(before.map((p) => p.file_id));
  const keeps = new Set(after.map((p) => p.file_id));
  const expiresAt = unattachedExpiry(now);
  return [
    ...files.filter((f) => !had.has(f.id)).map((f) => ({ file_id: f.id, item: fileStore.attach(f, reviewId) })),
    ...before.filter((p) => p.file_id && !keeps.has(p.file_id)).map((p) => ({ file_id: p.file_id!, item: fileStore.detach(p.file_id!, reviewId, expiresAt) })),
  ];
}

export type PhotoChange = ReturnType<typeof photoChanges>[number];

/** Photo items named photo0, photo1 ... so a refused condition names its file. */
export function photoNames(changes: PhotoChange[]): Record<string, TransactItem> {
  return Object.fromEntries(changes.map((c, i) => [`photo${i}`, c.item]));
}

/** The refusal of a photo whose condition failed (attached elsewhere, or changed, meanwhile). */
export function photoRefusal(failed: (name: string) => boolean, changes: PhotoChange[]): Error | undefined {
  const i = changes.findIndex((_, n) => failed(`photo${n}`));
  if (i < 0) return undefined;
  const id = changes[i]!.file_id;
  return new ApiError('review.photo.in_use', `File ${id} was attached to another review meanwhile.`, { file_id: id, field: 'photo_ids' });
}
