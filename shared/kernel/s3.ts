import { S3Client } from '@aws-sdk/client-s3';

let client: S3Client | undefined;

/** The S3 client, created once per container (path-style against the local S3 server, S3_FORCE_PATH_STYLE). */
export const s3 = () => (client ??= new S3Client({ forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true' }));

/** The HTTP status S3 answered a failed call with (the SDK's `$metadata`), if it answered. */
export const s3Status = (e: unknown): number | undefined => (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
