import * as z from 'zod';
import { BUCKETS } from '../buckets';
import { loadConfig } from '../kernel/config';

/** What POST /files accepts, and for how long. */
export const FILE_PURPOSES = ['review_photo'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];
export const PHOTO_TYPES = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' } as const;
export type PhotoType = keyof typeof PHOTO_TYPES;
export const PHOTO_CONTENT_TYPES = Object.keys(PHOTO_TYPES) as [PhotoType, ...PhotoType[]];
/** 5 MiB: a phone photo resized for the web; the presigned POST policy and the validator both enforce it. */
export const MAX_PHOTO_BYTES = 5 * 1024 * 1024;
/**
 * Every accepted photo is re-encoded (shared/files/reencode.ts): a display
 * size at most this many pixels on its long side, and a thumbnail; never
 * upscaled. Decoding stops above PHOTO_MAX_INPUT_PIXELS (a small file can
 * declare enormous dimensions).
 */
export const PHOTO_DISPLAY_LONG_SIDE = 1600;
export const PHOTO_THUMBNAIL_LONG_SIDE = 400;
export const PHOTO_MAX_INPUT_PIXELS = 100_000_000;
/**
 * The form field (and so the object's user metadata) that carries a file's
 * upload token: issued with the presigned POST, bound by its policy, and
 * compared by the validator with the file's record. An object that lacks it
 * was not uploaded with that file's fields (s3rver enforces no POST policy).
 */
export const UPLOAD_TOKEN_FIELD = 'x-amz-meta-upload-token';
/** The presigned POST is valid this long. */
export const UPLOAD_WINDOW_SECONDS = 15 * 60;
/** A file not attached to a review within this delay is deleted (record and object) by the sweep. */
export const UNATTACHED_TTL_HOURS = 24;
/** When a file left unattached at `now` expires. */
export const unattachedExpiry = (now: Date) => new Date(now.getTime() + UNATTACHED_TTL_HOURS * 3_600_000).toISOString();

const fileConfig = z.object({
  [BUCKETS.reviewPhotos!.envVar]: z.string().optional(),
  /** Public base URL of photos/ (the CloudFront distribution in AWS). Locally unset: the S3 server's URL of the bucket. */
  PHOTO_BASE_URL: z.string().optional(),
  AWS_ENDPOINT_URL_S3: z.string().optional(),
});

export function photoBucket(): string {
  const b = loadConfig(fileConfig)[BUCKETS.reviewPhotos!.envVar];
  if (!b) throw new Error(`${BUCKETS.reviewPhotos!.envVar} is not configured`);
  return b;
}

/** The stable public URL of a served photo object (photos/<id>.<ext>). */
export function photoUrl(objectKey: string): string {
  const c = loadConfig(fileConfig);
  const served = BUCKETS.reviewPhotos!.serve!.prefix;
  if (c.PHOTO_BASE_URL) return `${c.PHOTO_BASE_URL.replace(/\/$/, '')}/${objectKey.slice(served.length)}`;
  return `${(c.AWS_ENDPOINT_URL_S3 ?? 'http://127.0.0.1').replace(/\/$/, '')}/${photoBucket()}/${objectKey}`;
}
