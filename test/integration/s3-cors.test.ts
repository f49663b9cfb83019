import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, DeleteBucketCommand, GetBucketCorsCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS } from '../../shared/buckets';
import { stackRuntime } from './helpers';

/**
 * The local S3 answers CORS as S3 documents it (Common Response Headers, Appendix: OPTIONS object, Troubleshooting
 * CORS): the settlement documents' and the photos' buckets have the CDK's rules, what they do not allow is refused,
 * s3rver's extra headers are gone and an allowed preflight says its max age (infra/local/s3-serve.ts, corsAsS3).
 */
let s3: S3Client;
let endpoint: string;
/** A presigned GET of a fresh object in the settlement documents' bucket, as the API answers it in its 303. */
let link: string;
/** A bucket of the test's own, without a CORS rule (every bucket of the service has one). */
const bare = `cors-test-${randomUUID().slice(0, 8)}`;

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
  await s3.send(new CreateBucketCommand({ Bucket: bare }));
});

afterAll(async () => {
  await s3?.send(new DeleteBucketCommand({ Bucket: bare }));
});

/** A CORS preflight as a browser sends it. */
const preflight = (url: string, origin: string, method: string, headers?: string) =>
  fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, ...(headers ? { 'access-control-request-headers': headers } : {}) },
  });

describe('the local S3 and CORS', () => {
  it("gives the settlement documents' bucket and the photo bucket the CDK's rules", async () => {
    const rules = (await s3.send(new GetBucketCorsCommand({ Bucket: BUCKETS.settlementDocuments!.name }))).CORSRules;
    expect(rules).toEqual([{ AllowedOrigins: ['*'], AllowedMethods: ['GET'], AllowedHeaders: ['X-Environment'], ExposeHeaders: ['Content-Disposition'] }]);
    const photos = (await s3.send(new GetBucketCorsCommand({ Bucket: BUCKETS.reviewPhotos!.name }))).CORSRules;
    expect(photos).toEqual([{ AllowedOrigins: ['*'], AllowedMethods: ['POST'], MaxAgeSeconds: 3600 }]);
    await expect(s3.send(new GetBucketCorsCommand({ Bucket: bare }))).rejects.toMatchObject({ name: 'NoSuchCORSConfiguration' });
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
    const none = await preflight(`${endpoint}/${bare}/x.jpg`, 'https://console.example', 'GET');
    expect(none.status).toBe(403);
    expect(await none.text()).toContain('CORS is not enabled for this bucket');
  });

  it("answers the preflight of a browser's photo upload (an XMLHttpRequest with progress: POST, no header) for an hour, and refuses a header, another method or a GET of a photo", async () => {
    const form = `${endpoint}/${BUCKETS.reviewPhotos!.name}`;
    const ok = await preflight(form, 'https://app.bank.example', 'POST');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    expect(ok.headers.get('access-control-allow-methods')).toBe('POST');
    // S3 says the rule's MaxAgeSeconds on the preflight (s3rver alone does not): one preflight serves an hour of uploads.
    expect(ok.headers.get('access-control-max-age')).toBe('3600');
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    // Refused preflights carry no max age either: the browser caches no refusal.
    for (const [method, headers] of [
      ['POST', 'x-requested-with'],
      ['PUT', undefined],
      ['GET', undefined],
    ] as const) {
      const refused = await preflight(`${form}/pending/x`, 'https://app.bank.example', method, headers);
      expect(refused.status, `${method} ${headers}`).toBe(403);
      expect(await refused.text()).toContain('This CORS request is not allowed');
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      expect(refused.headers.get('access-control-max-age')).toBeNull();
    }

    // A refused form is readable by the page too (its status and S3's error), and only by a page: no Origin, no CORS.
    const noFile = new FormData();
    noFile.append('key', `pending/${randomUUID()}`);
    const error = await fetch(form, { method: 'POST', body: noFile, headers: { origin: 'https://app.bank.example' } });
    expect(error.status).toBe(400);
    expect(error.headers.get('access-control-allow-origin')).toBe('*');
    expect(await error.text()).toContain('InvalidArgument');
    const server = await fetch(form, { method: 'POST', body: noFile });
    expect(server.status).toBe(400);
    expect(server.headers.get('access-control-allow-origin')).toBeNull();
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
