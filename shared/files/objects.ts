import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { photoBucket } from './config';

let s3: S3Client | undefined;
const client = () => (s3 ??= new S3Client({ forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true' }));

/** The photo bucket's objects: presigned POST for uploads, and what the validator and the sweep do with them. */
export const photoObjects = {
  /**
   * A presigned POST whose policy binds the key, the exact Content-Type and
   * the size range: S3 refuses anything else (s3rver does not check policies:
   * the validator is what protects the local stack, and AWS too).
   */
  presignedPost(key: string, contentType: string, maxBytes: number, expiresSeconds: number) {
    return createPresignedPost(client(), {
      Bucket: photoBucket(),
      Key: key,
      Conditions: [
        ['content-length-range', 1, maxBytes],
        ['eq', '$Content-Type', contentType],
      ],
      Fields: { 'Content-Type': contentType },
      Expires: expiresSeconds,
    });
  },

  /** Size and stored Content-Type of an object, or undefined if it is gone. */
  async head(key: string): Promise<{ size: number; contentType?: string } | undefined> {
    try {
      const r = await client().send(new HeadObjectCommand({ Bucket: photoBucket(), Key: key }));
      return { size: r.ContentLength ?? 0, contentType: r.ContentType };
    } catch (e) {
      if ((e as { name?: string }).name === 'NotFound' || (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404)
        return undefined;
      throw e;
    }
  },

  /** The first `n` bytes of an object (a ranged GET: the rest is never read). */
  async firstBytes(key: string, n: number): Promise<Uint8Array> {
    const r = await client().send(new GetObjectCommand({ Bucket: photoBucket(), Key: key, Range: `bytes=0-${n - 1}` }));
    return (await r.Body!.transformToByteArray()).subarray(0, n);
  },

  async copy(from: string, to: string, contentType: string): Promise<void> {
    const bucket = photoBucket();
    await client().send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: to,
        CopySource: `${bucket}/${from}`,
        ContentType: contentType,
        CacheControl: 'public, max-age=31536000, immutable',
        MetadataDirective: 'REPLACE',
      }),
    );
  },

  async delete(key: string): Promise<void> {
    await client().send(new DeleteObjectCommand({ Bucket: photoBucket(), Key: key }));
  },
};
