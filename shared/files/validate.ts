import { fileTypeFromBuffer } from 'file-type';
import { logger } from '../kernel/logger';
import { countEvent } from '../kernel/metrics';
import { MAX_PHOTO_BYTES, PHOTO_TYPES } from './config';
import { fileKeys } from './keys';
import type { FileRecord, RejectionReason } from './model';
import { photoObjects } from './objects';
import { fileStore } from './store';

/** file-type recognises every format it knows within the first 4 100 bytes. */
const SNIFF_BYTES = 4100;

/** The verdict on an uploaded object, from its size and its first bytes (pure). */
export function verdict(file: Pick<FileRecord, 'content_type' | 'size_bytes'>, size: number, sniffed: string | undefined): RejectionReason | undefined {
  if (size === 0) return 'empty';
  if (size > file.size_bytes || size > MAX_PHOTO_BYTES) return 'too_large';
  if (!sniffed) return 'unrecognized_type';
  if (sniffed !== file.content_type) return 'type_mismatch';
  return undefined;
}

interface S3Record {
  eventName?: string;
  s3?: { object?: { key?: string } };
}

/**
 * One S3 event notification (an SQS message body): each ObjectCreated under
 * pending/ is checked. The real type (from the first bytes) must be the
 * declared one and the size within the declared size and the limit; the file
 * is then READY (its object copied to photos/, which the CDN serves) or
 * REJECTED with its reason, and its pending object is deleted either way.
 * Redelivered notifications find the file already checked and do nothing.
 */
export async function checkUploads(message: unknown, now = new Date()): Promise<void> {
  const records = ((message as { Records?: S3Record[] }).Records ?? []).filter((r) => r.eventName?.startsWith('ObjectCreated:'));
  for (const r of records) {
    const key = decodeURIComponent((r.s3?.object?.key ?? '').replace(/\+/g, ' '));
    const id = fileKeys.idOfPendingObject(key);
    if (!id) continue;
    await checkOne(id, key, now);
  }
}

async function checkOne(id: string, key: string, now: Date): Promise<void> {
  const file = await fileStore.get(id);
  if (!file) {
    // An object nobody announced (or whose record was swept): never served.
    await photoObjects.delete(key);
    return;
  }
  if (file.status !== 'PENDING_UPLOAD') return;
  const head = await photoObjects.head(key);
  if (!head) return;
  const sniffed = head.size > 0 ? (await fileTypeFromBuffer(await photoObjects.firstBytes(key, Math.min(SNIFF_BYTES, head.size))))?.mime : undefined;
  const reason = verdict(file, head.size, sniffed);
  if (reason) {
    await photoObjects.delete(key);
    if (await fileStore.settle(id, { status: 'REJECTED', reason }, now)) {
      countEvent('FilesRejected', file.env);
      logger.info('upload rejected', { file_id: id, reason, declared: file.content_type, detected: sniffed ?? null, size: head.size });
    }
    return;
  }
  const objectKey = fileKeys.photoObject(id, PHOTO_TYPES[file.content_type]);
  await photoObjects.copy(key, objectKey, file.content_type);
  await fileStore.settle(id, { status: 'READY', object_key: objectKey }, now);
  await photoObjects.delete(key);
}
