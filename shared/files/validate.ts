import { fileTypeFromBuffer } from 'file-type';
import { BUCKETS } from '../buckets';
import { logger } from '../kernel/logger';
import { countEvent } from '../kernel/metrics';
import { MAX_PHOTO_BYTES, PHOTO_TYPES, UPLOAD_TOKEN_FIELD } from './config';
import { fileKeys } from './keys';
import type { FileRecord, RejectionReason, Rendition } from './model';
import { photoObjects } from './objects';
import { type Encoded, reencode } from './reencode';
import { fileStore } from './store';

/** The verdict on an uploaded object, from its size and its real type (pure). */
export function verdict(file: Pick<FileRecord, 'content_type' | 'size_bytes'>, size: number, sniffed: string | undefined): RejectionReason | undefined {
  if (size === 0) return 'empty';
  if (size > file.size_bytes || size > MAX_PHOTO_BYTES) return 'too_large';
  if (!sniffed) return 'unrecognized_type';
  if (sniffed !== file.content_type) return 'type_mismatch';
  return undefined;
}

const SERVED_PREFIX = BUCKETS.reviewPhotos!.serve!.prefix;
/** The user-metadata name S3 gives back for the upload token field (without x-amz-meta-). */
const TOKEN_METADATA = UPLOAD_TOKEN_FIELD.replace(/^x-amz-meta-/, '');

interface S3Record {
  eventName?: string;
  s3?: { object?: { key?: string } };
}

/**
 * One S3 event notification (an SQS message body). Each ObjectCreated under
 * pending/ is checked: it must carry the upload token issued for that file
 * (else it is someone else's write, deleted, and the file still waits for its
 * own upload); its real type must be the declared one, its size within the
 * declared size and the limit, and it must decode as an image. It is then
 * re-encoded (display size and thumbnail, no metadata, nothing appended),
 * the renditions written to photos/ (which the CDN serves) and the file is
 * READY; or it is REJECTED with its reason. The pending object is deleted
 * either way. Each ObjectCreated under photos/ is checked against the
 * renditions its file recorded: anything else there was not written by the
 * validator and is deleted. Redelivered notifications change nothing.
 */
export async function checkUploads(message: unknown, now = new Date()): Promise<void> {
  const records = ((message as { Records?: S3Record[] }).Records ?? []).filter((r) => r.eventName?.startsWith('ObjectCreated:'));
  for (const r of records) {
    const key = decodeURIComponent((r.s3?.object?.key ?? '').replace(/\+/g, ' '));
    const id = fileKeys.idOfPendingObject(key);
    if (id) await checkOne(id, key, now);
    else if (key.startsWith(SERVED_PREFIX)) await guardPublished(key);
  }
}

async function checkOne(id: string, key: string, now: Date): Promise<void> {
  const file = await fileStore.get(id);
  if (file?.status !== 'PENDING_UPLOAD') {
    // An object nobody announced (or whose record was swept), or one written after its file was checked: never served.
    await photoObjects.delete(key);
    return;
  }
  const head = await photoObjects.head(key);
  if (!head) return;
  // Checked on the HEAD (before an oversized or empty object could reject the file) and again on what is read.
  if (!(await uploadedWithFileFields(file, head.metadata, key))) return;
  let reason: RejectionReason | undefined;
  let sniffed: string | undefined;
  let renditions: Awaited<ReturnType<typeof reencode>> | undefined;
  if (head.size === 0 || head.size > Math.min(file.size_bytes, MAX_PHOTO_BYTES)) reason = verdict(file, head.size, undefined);
  else {
    const object = await photoObjects.read(key);
    if (!object || !(await uploadedWithFileFields(file, object.metadata, key))) return;
    sniffed = (await fileTypeFromBuffer(object.bytes))?.mime;
    reason = verdict(file, object.bytes.length, sniffed);
    if (!reason) {
      renditions = await reencode(object.bytes, file.content_type).catch((e: Error) => {
        logger.info('upload does not decode', { file_id: id, error: e.message });
        return undefined;
      });
      if (!renditions) reason = 'unreadable_image';
    }
  }
  if (reason || !renditions) {
    await photoObjects.delete(key);
    if (await fileStore.settle(id, { status: 'REJECTED', reason: reason ?? 'unreadable_image' }, now)) {
      countEvent('FilesRejected', file.env);
      logger.info('upload rejected', { file_id: id, reason, declared: file.content_type, detected: sniffed ?? null, size: head.size });
    }
    return;
  }
  const ext = PHOTO_TYPES[file.content_type];
  const { display, thumbnail } = renditions;
  const recorded = { display: rendition(fileKeys.photoObject(id, ext), display), thumbnail: rendition(fileKeys.thumbnailObject(id, ext), thumbnail) };
  // Recorded before they are written, so that the photos/ guard knows them when their notifications arrive.
  if (!(await fileStore.recordRenditions(id, recorded))) return;
  await photoObjects.put(recorded.display.key, display.bytes, file.content_type);
  await photoObjects.put(recorded.thumbnail.key, thumbnail.bytes, file.content_type);
  await fileStore.settle(id, { status: 'READY', object_key: recorded.display.key }, now);
  await photoObjects.delete(key);
  logger.info('upload accepted', { file_id: id, size: head.size, display: `${display.width}x${display.height}`, display_bytes: display.bytes.length });
}

const rendition = (key: string, e: Encoded): Rendition => ({ key, md5: e.md5, width: e.width, height: e.height });

/**
 * Whether a pending object carries its file's upload token. If not, it was
 * written with another file's presigned fields (another partner's, on an S3
 * that checks no POST policy) or by anything else: it is deleted, and the
 * file keeps waiting for its own upload.
 */
async function uploadedWithFileFields(file: FileRecord, metadata: Record<string, string>, key: string): Promise<boolean> {
  // Files issued before upload tokens existed: their POST policy binds the key (AWS).
  if (!file.upload_token || metadata[TOKEN_METADATA] === file.upload_token) return true;
  await photoObjects.delete(key);
  logger.warn('foreign upload deleted', { file_id: file.id, key });
  return false;
}

/**
 * An object created under photos/: only the renditions the validator
 * recorded for a file may be there, with the very bytes it wrote (their MD5
 * is the ETag). Anything else (a write with s3rver's unchecked form fields, a
 * stray copy) is deleted, never served.
 */
async function guardPublished(key: string): Promise<void> {
  const id = fileKeys.idOfPhotoObject(key);
  const file = id ? await fileStore.get(id) : undefined;
  const expected = Object.values(file?.renditions ?? {}).find((r) => r.key === key);
  const head = await photoObjects.head(key);
  if (!head || (expected && head.etag === expected.md5)) return;
  await photoObjects.delete(key);
  logger.warn('foreign object under photos/ deleted', { key, file_id: id ?? null, size: head.size });
}
