import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { photoBucket, UPLOAD_TOKEN_FIELD } from './config';

let s3: S3Client | undefined;
const client = () => (s3 ??= new S3Client({ forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true' }));

/** The photo bucket's objects: presigned POST for uploads, and what the validator and the sweep do with them. */
export const photoObjects = {
  /**
   * A presigned POST whose policy binds the key, the exact Content-Type,
   * the size range and the file's upload token (a form field, stored as the
   * object's user metadata): S3 refuses anything else. s3rver checks no
   * policy: the validator compares the token and the key with the file's
   * record, which protects the local stack, and AWS as well.
   */
  presignedPost(key: string, contentType: string, maxBytes: number, expiresSeconds: number, uploadToken: string) {
    return createPresignedPost(client(), {
      Bucket: photoBucket(),
      Key: key,
      Conditions: [
        ['content-length-range', 1, maxBytes],
        ['eq', '$Content-Type', contentType],
      ],
      // Each field is also an exact-match condition of the policy.
      Fields: { 'Content-Type': contentType, [UPLOAD_TOKEN_FIELD]: uploadToken },
      Expires: expiresSeconds,
    });
  },

  /** Size, ETag (unquoted) and user metadata of an object, or undefined if it is gone. */
  async head(key: string): Promise<{ size: number; etag: string; metadata: Record<string, string> } | undefined> {
    try {
      const r = await client().send(new HeadObjectCommand({ Bucket: photoBucket(), Key: key }));
      return { size: r.ContentLength ?? 0, etag: (r.ETag ?? '').replace(/"/g, ''), metadata: r.Metadata ?? {} };
    } catch (e) {
      if ((e as { name?: string }).name === 'NotFound' || (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404)
        return undefined;
      throw e;
    }
  },

  /** The whole object and its user metadata (the validator reads at most MAX_PHOTO_BYTES: it checks the size first). */
  async read(key: string): Promise<{ bytes: Uint8Array; metadata: Record<string, string> } | undefined> {
    try {
      const r = await client().send(new GetObjectCommand({ Bucket: photoBucket(), Key: key }));
      return { bytes: await r.Body!.transformToByteArray(), metadata: r.Metadata ?? {} };
    } catch (e) {
      if ((e as { name?: string }).name === 'NoSuchKey' || (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404)
        return undefined;
      throw e;
    }
  },

  /** Writes a served object (a rendition the validator made): immutable, with its real type. */
  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await client().send(
      new PutObjectCommand({
        Bucket: photoBucket(),
        Key: key,
        Body: bytes,
        ContentType: contentType,
        CacheControl: 'public, max-age=31536000, immutable',
      }),
    );
  },

  async delete(key: string): Promise<void> {
    await client().send(new DeleteObjectCommand({ Bucket: photoBucket(), Key: key }));
  },
};
