import { randomUUID } from 'node:crypto';
import { GetBucketCorsCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS } from '../../shared/buckets';
import { stackRuntime } from './helpers';

/**
 * The local S3 answers CORS as S3 documents it (Common Response Headers, Troubleshooting CORS): the settlement
 * documents' bucket has the CDK's rule, what it does not allow is refused, and s3rver's extra headers are gone
 * (infra/local/s3-serve.ts, corsAsS3).
 */
let s3: S3Client;
let endpoint: string;
/** A presigned GET of a fresh object in the settlement documents' bucket, as the API answers it in its 303. */
let link: string;

beforeAll(async () => {
  endpoint = stackRuntime().env.AWS_ENDPOINT_URL_S3!;
  s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const Key = `cors-test/${randomUUID()}/statement.csv`;
  await s3.send(new PutObjectCommand({ Bucket: BUCKETS.settlementDocuments!.name, Key, Body: 'a;b\r\n', ContentType: 'text/csv' }));
  link = await getSignedUrl(
    s3,
    new GetObjectCommand({ Bucket: BUCKETS.settlementDocuments!.name, Key, ResponseContentDisposition: 'attachment; filename="statement.csv"' }),
    { expiresIn: 300 },
  );
});

/** A CORS preflight as a browser sends it. */
const preflight = (url: string, origin: string, method: string, headers?: string) =>
  fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, ...(headers ? { 'access-control-request-headers': headers } : {}) },
  });

describe('the local S3 and CORS', () => {
  it("gives the settlement documents' bucket the CDK's rule, and the photo bucket none", async () => {
    const rules = (await s3.send(new GetBucketCorsCommand({ Bucket: BUCKETS.settlementDocuments!.name }))).CORSRules;
    expect(rules).toEqual([{ AllowedOrigins: ['*'], AllowedMethods: ['GET'], AllowedHeaders: ['X-Environment'], ExposeHeaders: ['Content-Disposition'] }]);
    await expect(s3.send(new GetBucketCorsCommand({ Bucket: BUCKETS.reviewPhotos!.name }))).rejects.toMatchObject({ name: 'NoSuchCORSConfiguration' });
  });

  it("answers the preflight of a document link followed from the API (Origin: null, X-Environment), and refuses what the rule does not allow with S3's 403s", async () => {
    const ok = await preflight(link, 'null', 'GET', 'x-environment');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    expect(ok.headers.get('access-control-allow-methods')).toBe('GET');
    expect(ok.headers.get('access-control-allow-headers')).toBe('x-environment');
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    expect(ok.headers.get('vary')).toBe('Origin, Access-Control-Request-Headers, Access-Control-Request-Method');

    // The session's token (a browser that kept it across the redirect): S3 would refuse a second credential anyway.
    const token = await preflight(link, 'null', 'GET', 'authorization, x-environment');
    expect(token.status).toBe(403);
    expect(await token.text()).toContain('This CORS request is not allowed');
    const put = await preflight(link, 'https://console.example', 'PUT');
    expect(put.status).toBe(403);
    expect(put.headers.get('access-control-allow-origin')).toBeNull();
    // A bucket without a rule refuses every preflight.
    const photo = await preflight(`${endpoint}/${BUCKETS.reviewPhotos!.name}/photos/x.jpg`, 'https://console.example', 'GET');
    expect(photo.status).toBe(403);
    expect(await photo.text()).toContain('CORS is not enabled for this bucket');
  });

  it('answers a GET from an origin with Allow-Origin * and the exposed name, no credentials; a GET without Origin with no CORS header at all', async () => {
    const cors = await fetch(link, { headers: { origin: 'null', 'x-environment': 'sandbox' } });
    expect(cors.status).toBe(200);
    expect(await cors.text()).toBe('a;b\r\n');
    expect(cors.headers.get('access-control-allow-origin')).toBe('*');
    expect(cors.headers.get('access-control-expose-headers')).toBe('Content-Disposition');
    expect(cors.headers.get('content-disposition')).toBe('attachment; filename="statement.csv"');
    // S3 omits Allow-Credentials beside Allow-Origin * (s3rver says true).
    expect(cors.headers.get('access-control-allow-credentials')).toBeNull();

    // No Origin, no CORS evaluation (s3rver's * rule answers every request): nothing a browser's cache could reuse cross-origin.
    const plain = await fetch(link);
    expect(plain.status).toBe(200);
    expect([...plain.headers.keys()].filter((h) => h.startsWith('access-control-') || h === 'vary')).toEqual([]);
  });
});
