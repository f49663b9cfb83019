import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * What the validator makes of S3's answers for a missing object. S3 answers 404 (HEAD: a bare 404; GET: NoSuchKey)
 * only to a caller that may list the key's prefix, and 403 (HEAD: a bare 403; GET: AccessDenied) to any other. The
 * local S3 server never refuses, so the refusal is played here on the wire, as S3 sends it: keys under denied/ are
 * refused, any other is missing. The SDK parses the answers as it does in Lambda.
 */
let server: Server;

beforeAll(async () => {
  server = createServer((req, res) => {
    const key = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.split('/').slice(2).join('/'));
    const [status, code] = key.startsWith('denied/') ? [403, 'AccessDenied'] : [404, 'NoSuchKey'];
    res.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': 'test' });
    // A HEAD answer has no body, so the SDK knows only the status.
    res.end(req.method === 'HEAD' ? undefined : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    S3_FORCE_PATH_STYLE: 'true',
    PHOTO_BUCKET: 'photos',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_MAX_ATTEMPTS: '1',
  });
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('photo objects: gone or refused', () => {
  it('takes a 404 (HEAD NotFound, GET NoSuchKey) as gone', async () => {
    const { photoObjects } = await import('../../shared/files/objects');
    expect(await photoObjects.head('pending/missing')).toBeUndefined();
    expect(await photoObjects.read('pending/missing')).toBeUndefined();
  });

  it('never takes a 403 as gone: the error names the refused call, the key and the s3:ListBucket grant it needs', async () => {
    const { photoObjects } = await import('../../shared/files/objects');
    // HEAD's 403 has no body: without this, the SDK's error says only "UnknownError".
    await expect(photoObjects.head('denied/x')).rejects.toThrow(/S3 refused HeadObject of denied\/x \(403\).*s3:ListBucket/);
    await expect(photoObjects.read('denied/x')).rejects.toThrow(/S3 refused GetObject of denied\/x \(403\).*s3:ListBucket/);
    const e = await photoObjects.head('denied/x').catch((x: Error) => x);
    expect((e as Error & { cause: { $metadata: { httpStatusCode: number } } }).cause.$metadata.httpStatusCode).toBe(403);
  });
});
