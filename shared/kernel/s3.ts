import { S3Client } from '@aws-sdk/client-s3';

let client: S3Client | undefined;

/** The S3 client, created once per container (path-style against the local S3 server, S3_FORCE_PATH_STYLE). */
export const s3 = () => (client ??= new S3Client({ forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true' }));

/** The HTTP status S3 answered a failed call with (the SDK's `$metadata`), if it answered. */
export const s3Status = (e: unknown): number | undefined => (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

/** A CRC32 (zlib's `crc32`, which runs over chunks) as S3 writes it in x-amz-checksum-crc32: base64 of its 4 big-endian bytes. */
export function crc32Base64(crc: number): string {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(crc >>> 0);
  return b.toString('base64');
}
