import * as z from 'zod';
import { personal, pub, secret } from '../http/data-class';
import { FILE_PURPOSES, MAX_PHOTO_BYTES, PHOTO_CONTENT_TYPES, PHOTO_DISPLAY_LONG_SIDE, PHOTO_THUMBNAIL_LONG_SIDE } from './config';
import { REJECTION_REASONS } from './model';

export const CreateFileBody = z
  .object({
    purpose: pub(z.enum(FILE_PURPOSES)),
    content_type: pub(z.enum(PHOTO_CONTENT_TYPES)).describe(
      'The exact Content-Type of the upload: the presigned policy binds it, and the check compares it with the real type',
    ),
    size_bytes: pub(z.number().int().min(1).max(MAX_PHOTO_BYTES)).describe(
      `The size of the file in bytes, at most ${MAX_PHOTO_BYTES} (5 MiB): the upload may not exceed it`,
    ),
  })
  .strict()
  .meta({ id: 'CreateFileRequest' });

export const FileIdParams = z.object({ id: pub(z.uuid()) });

const FileStatus = z.enum(['PENDING_UPLOAD', 'READY', 'REJECTED']).meta({
  id: 'FileStatus',
  dataClass: 'public',
  description: 'PENDING_UPLOAD until the uploaded object is checked; READY can be attached; REJECTED cannot (see rejection_reason)',
});

export const FileObject = z
  .object({
    id: pub(z.uuid()),
    purpose: pub(z.enum(FILE_PURPOSES)),
    status: FileStatus,
    content_type: pub(z.enum(PHOTO_CONTENT_TYPES)),
    size_bytes: pub(z.number().int()),
    rejection_reason: pub(z.enum(REJECTION_REASONS))
      .nullable()
      .describe('Why a REJECTED file was refused: unreadable_image when its bytes have the declared type but do not decode as an image'),
    // A traveler's photo: personal, even once re-encoded without metadata.
    url: personal(z.url())
      .nullable()
      .describe(
        `The stable public URL of the photo once READY: re-encoded without metadata (no EXIF, no GPS position), at most ${PHOTO_DISPLAY_LONG_SIDE} px on its long side`,
      ),
    thumbnail_url: personal(z.url())
      .nullable()
      .describe(
        `The same photo at most ${PHOTO_THUMBNAIL_LONG_SIDE} px on its long side, once READY (equal to url for a photo accepted before thumbnails existed)`,
      ),
    attached: pub(z.boolean()),
    created_at: pub(z.iso.datetime()),
    expires_at: pub(z.iso.datetime()).describe('An unattached file is deleted after this instant'),
  })
  .meta({ id: 'File' });

export const CreatedFile = FileObject.extend({
  upload: z
    .object({
      // The presigned POST: its policy and signature let anyone upload until it expires.
      url: secret(z.url()),
      method: pub(z.literal('POST')),
      fields: secret(z.record(z.string(), z.string())).describe('Form fields to send first, in a multipart/form-data POST whose last field is `file`'),
    })
    .describe('A presigned S3 POST: its policy binds the key, the Content-Type and the size'),
  upload_expires_at: pub(z.iso.datetime()),
}).meta({ id: 'CreatedFile' });
