import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { logger } from '../kernel/logger';
import { recordMultipartAbortFailure } from '../kernel/metrics';
import { s3 as client, crc32Base64, s3Status } from '../kernel/s3';
import { settlementSettings } from './config';
import type { StoredDocument } from './model';

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
 * versioned, encrypted and private, under Object Lock with a default retention:
 * S3 refuses an upload there without Content-MD5 or an x-amz-checksum-* (the
 * PutObject API reference), so the CRC32 is sent whatever the SDK's
 * request_checksum_calculation says.
 */
export async function storeDocument(key: string, kind: DocumentKind, body: Buffer, filename: string): Promise<StoredDocument> {
  const sha256 = createHash('sha256').update(body).digest('hex');
  try {
    await client().send(
      new PutObjectCommand({
        Bucket: bucket(),
        Key: key,
        Body: body,
        ChecksumCRC32: crc32Base64(crc32(body)),
        ContentType: DOCUMENT_TYPES[kind].contentType,
        ContentDisposition: `attachment; filename="${filename}"`,
        Metadata: { sha256 },
        IfNoneMatch: '*',
      }),
    );
  } catch (e) {
    // Already stored by an earlier run: keep what is there.
    if (s3Status(e) !== 412) throw e;
  }
  return { key, bytes: body.length, sha256 };
}

/** Parts of a streamed document: S3 takes 5 MB at least for every part but the last. */
export const PART_BYTES = 8 * 1024 * 1024;

const alreadyStored = (e: unknown) => s3Status(e) === 412;

/**
 * Stores a document produced piece by piece without holding it whole: below
 * one part, one PutObject as `storeDocument`; beyond, an S3 multipart upload
 * whose parts leave as they fill, completed with If-None-Match: * (an issued
 * document never changes) or aborted on a failure (s3:AbortMultipartUpload:
 * the writers' bucket access is `write-multipart`). Memory: one part.
 *
 * Checksums: the bucket's Object Lock makes S3 refuse a part without one, and a part's checksum must be of the
 * algorithm the upload was created with, and listed again for each part on completion (InvalidRequest
 * otherwise). So the upload is created as CRC32 of the full object, each part carries its CRC32, and the
 * completion lists every part's ETag and CRC32 and the whole document's: S3 checks the object it assembles is
 * the bytes rendered (BadDigest otherwise), and the object's checksum is its CRC32 whatever the part size, as
 * one PutObject's is (a composite checksum would depend on where the parts were cut).
 */
export async function storeDocumentStream(
  key: string,
  kind: DocumentKind,
  chunks: Iterable<Buffer>,
  filename: string,
  partBytes = PART_BYTES,
): Promise<StoredDocument> {
  const hash = createHash('sha256');
  let bytes = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let crc = 0;
  let uploadId: string | undefined;
  const parts: CompletedPart[] = [];
  const common = { Bucket: bucket(), Key: key };
  const flush = async () => {
    const body = Buffer.concat(pending);
    pending = [];
    pendingBytes = 0;
    if (!uploadId) {
      const r = await client().send(
        new CreateMultipartUploadCommand({
          ...common,
          ContentType: DOCUMENT_TYPES[kind].contentType,
          ContentDisposition: `attachment; filename="${filename}"`,
          ChecksumAlgorithm: 'CRC32',
          ChecksumType: 'FULL_OBJECT',
        }),
      );
      uploadId = r.UploadId!;
    }
    const PartNumber = parts.length + 1;
    const ChecksumCRC32 = crc32Base64(crc32(body));
    const r = await client().send(new UploadPartCommand({ ...common, UploadId: uploadId, PartNumber, Body: body, ChecksumCRC32 }));
    parts.push({ PartNumber, ETag: r.ETag, ChecksumCRC32 });
  };
  try {
    for (const c of chunks) {
      hash.update(c);
      crc = crc32(c, crc);
      bytes += c.length;
      pending.push(c);
      pendingBytes += c.length;
      if (pendingBytes >= partBytes) await flush();
    }
    const sha256 = hash.digest('hex');
    if (!uploadId) return { ...(await storeDocument(key, kind, Buffer.concat(pending), filename)), sha256 };
    if (pendingBytes > 0) await flush();
    try {
      await client().send(
        new CompleteMultipartUploadCommand({
          ...common,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
          ChecksumType: 'FULL_OBJECT',
          ChecksumCRC32: crc32Base64(crc),
          IfNoneMatch: '*',
        }),
      );
    } catch (e) {
      if (!alreadyStored(e)) throw e;
    }
    return { key, bytes, sha256 };
  } catch (e) {
    if (uploadId) await abort(common, uploadId, e);
    throw e;
  }
}

/**
 * Aborts the multipart upload of a write that failed (`failure`, which the caller rethrows). An abort that fails
 * too is logged and counted: its parts stay billed until the bucket's lifecycle rule aborts the upload, a day
 * after it began.
 */
async function abort(target: { Bucket: string; Key: string }, uploadId: string, failure: unknown): Promise<void> {
  try {
    await client().send(new AbortMultipartUploadCommand({ ...target, UploadId: uploadId }));
  } catch (e) {
    recordMultipartAbortFailure();
    logger.error('multipart upload not aborted', {
      bucket: target.Bucket,
      key: target.Key,
      upload_id: uploadId,
      error: (e as Error).message,
      status: s3Status(e) ?? null,
      failure: (failure as Error).message,
    });
  }
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
