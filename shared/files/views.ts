import type { z } from 'zod';
import { photoUrl } from './config';
import type { FileRecord } from './model';
import type { CreatedFile, FileObject } from './schemas';

export type FileView = z.input<typeof FileObject>;

export function fileView(f: FileRecord): FileView {
  return {
    id: f.id,
    purpose: f.purpose,
    status: f.status,
    content_type: f.content_type,
    size_bytes: f.size_bytes,
    rejection_reason: f.rejection_reason ?? null,
    url: f.status === 'READY' && f.object_key ? photoUrl(f.object_key) : null,
    thumbnail_url: f.status === 'READY' && f.object_key ? photoUrl(f.renditions?.thumbnail.key ?? f.object_key) : null,
    attached: f.attached_to !== undefined,
    created_at: f.created_at,
    expires_at: f.expires_at,
  };
}

export function createdFileView(r: {
  record: FileRecord;
  upload: { url: string; method: 'POST'; fields: Record<string, string> };
}): z.input<typeof CreatedFile> {
  return { ...fileView(r.record), upload: r.upload, upload_expires_at: r.record.upload_expires_at };
}
