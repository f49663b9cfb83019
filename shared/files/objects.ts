import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { s3 as client, s3Status } from '../kernel/s3';
import { photoBucket, UPLOAD_TOKEN_FIELD } from './config';

/**
 * A read of `key` failed: undefined if the object is gone, else an error. S3 answers 404 for a missing key only to
 * a caller that may list it (s3:ListBucket on its prefix: the validator has it on the prefixes it reads, see
 * BucketBinding `listPrefixes`); to any other caller it answers 403, exactly as to a refused read. So only a 404
 * is "gone"; a 403 is an error that says so (a HEAD's 403 has no body, and the SDK calls it "UnknownError").
 */
function gone(e: unknown, operation: string, key: string): undefined {
  const status = s3Status(e);
  if (status === 404) return undefined;
  if (status === 403)
    throw new Error(
      `S3 refused ${operation} of ${key} (403): the role lacks s3:GetObject on it, or s3:ListBucket on its prefix (without which a missing key answers 403, not 404)`,
      { cause: e },
    );
  throw e;
}

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
      return gone(e, 'HeadObject', key);
    }
  },

  /** The whole object and its user metadata (the validator reads at most MAX_PHOTO_BYTES: it checks the size first). */
  async read(key: string): Promise<{ bytes: Uint8Array; metadata: Record<string, string> } | undefined> {
    try {
      const r = await client().send(new GetObjectCommand({ Bucket: photoBucket(), Key: key }));
      return { bytes: await r.Body!.transformToByteArray(), metadata: r.Metadata ?? {} };
    } catch (e) {
      return gone(e, 'GetObject', key);
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
