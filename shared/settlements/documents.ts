import { createHash } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { settlementSettings } from './config';
import type { StoredDocument } from './model';

let s3: S3Client | undefined;
const client = () => (s3 ??= new S3Client({ forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true' }));

function bucket(): string {
  const b = settlementSettings().SETTLEMENT_BUCKET;
  if (!b) throw new Error('SETTLEMENT_BUCKET is not configured');
  return b;
}

export type DocumentKind = 'invoice' | 'statement';
export const DOCUMENT_TYPES: Record<DocumentKind, { contentType: string; extension: string }> = {
  invoice: { contentType: 'application/pdf', extension: 'pdf' },
  statement: { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
};

/**
 * Stores an issued document. The object is written only if it does not exist
 * yet (If-None-Match: *): an issued document never changes, and a job that
 * resumes after a crash renders the same bytes anyway. The bucket is
 * versioned, encrypted and private.
 */
export async function storeDocument(key: string, kind: DocumentKind, body: Buffer, filename: string): Promise<StoredDocument> {
  const sha256 = createHash('sha256').update(body).digest('hex');
  try {
    await client().send(
      new PutObjectCommand({
        Bucket: bucket(),
        Key: key,
        Body: body,
        ContentType: DOCUMENT_TYPES[kind].contentType,
        ContentDisposition: `attachment; filename="${filename}"`,
        Metadata: { sha256 },
        IfNoneMatch: '*',
      }),
    );
  } catch (e) {
    // Already stored by an earlier run: keep what is there.
    if ((e as { name?: string; $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== 412) throw e;
  }
  return { key, bytes: body.length, sha256 };
}

export async function readDocument(key: string): Promise<Buffer> {
  const r = await client().send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
  return Buffer.from(await r.Body!.transformToByteArray());
}

/** A short-lived presigned GET of a document, for answers too large for a Lambda response. */
export async function documentLink(key: string, kind: DocumentKind, filename: string): Promise<string> {
  return getSignedUrl(
    client(),
    new GetObjectCommand({
      Bucket: bucket(),
      Key: key,
      ResponseContentType: DOCUMENT_TYPES[kind].contentType,
      ResponseContentDisposition: `attachment; filename="${filename}"`,
    }),
    { expiresIn: settlementSettings().SETTLEMENT_LINK_SECONDS },
  );
}
