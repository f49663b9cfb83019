import { randomBytes, randomUUID } from 'node:crypto';
import { notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import { type FilePurpose, MAX_PHOTO_BYTES, type PhotoType, UPLOAD_WINDOW_SECONDS, unattachedExpiry } from './config';
import { fileKeys } from './keys';
import type { FileRecord } from './model';
import { photoObjects } from './objects';
import { fileStore } from './store';

export interface NewUpload {
  purpose: FilePurpose;
  content_type: PhotoType;
  size_bytes: number;
}

/** A file record in PENDING_UPLOAD and the presigned POST that uploads it (under pending/, checked before use). */
export async function createUpload(t: Tenant, input: NewUpload, now = new Date()) {
  const id = randomUUID();
  const uploadExpires = new Date(now.getTime() + UPLOAD_WINDOW_SECONDS * 1000);
  const record: FileRecord = {
    id,
    partner_id: t.partnerId,
    env: t.env,
    purpose: input.purpose,
    content_type: input.content_type,
    size_bytes: Math.min(input.size_bytes, MAX_PHOTO_BYTES),
    status: 'PENDING_UPLOAD',
    upload_token: randomBytes(24).toString('base64url'),
    created_at: now.toISOString(),
    upload_expires_at: uploadExpires.toISOString(),
    expires_at: unattachedExpiry(now),
  };
  const post = await photoObjects.presignedPost(
    fileKeys.pendingObject(id),
    record.content_type,
    record.size_bytes,
    UPLOAD_WINDOW_SECONDS,
    record.upload_token!,
  );
  await fileStore.create(record);
  return { record, upload: { url: post.url, method: 'POST' as const, fields: post.fields } };
}

/** A file of the tenant (404 for anyone else's). */
export async function getFile(t: Tenant, id: string): Promise<FileRecord> {
  const f = await fileStore.get(id);
  if (!f || f.partner_id !== t.partnerId || f.env !== t.env) throw notFound('File', id);
  return f;
}
