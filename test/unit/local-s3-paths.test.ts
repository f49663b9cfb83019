import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionBuckets } from '../../infra/local/provision';
import { freePort, startS3 } from '../../infra/local/services';
import { BUCKETS } from '../../shared/buckets';

/**
 * The paths the local S3 refuses before s3rver reads them (infra/local/s3-serve.ts, pathsAsS3): what S3 refuses
 * (InvalidURI, KeyTooLongError), once answered 500, and the keys s3rver would store outside their bucket's folder.
 */
const BUCKET = BUCKETS.reviewPhotos!.name;
let dir: string;
let stop: () => Promise<void>;
let endpoint: string;
let s3: S3Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ptbs-s3-paths-'));
  const h = await startS3(join(dir, 's3'), await freePort());
  stop = h.stop;
  endpoint = h.endpoint;
  s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  await provisionBuckets(s3);
});
afterAll(async () => {
  await stop();
  rmSync(dir, { recursive: true, force: true });
});

const refusal = (name: string, status: number) => ({ name, $metadata: expect.objectContaining({ httpStatusCode: status }) });
/** An S3 error answer: its status and XML code. */
const answer = async (r: Response) => ({ status: r.status, code: /<Code>([^<]*)<\/Code>/.exec(await r.text())?.[1] });

describe('paths the local S3 refuses', () => {
  it("never stores a key with a '..' segment outside its bucket's folder, as sent by the SDK or percent-encoded (400 InvalidArgument)", async () => {
    const name = `escaped-${randomUUID()}`;
    await expect(s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `../${name}`, Body: 'x' }))).rejects.toMatchObject(refusal('InvalidArgument', 400));
    expect(await answer(await fetch(`${endpoint}/${BUCKET}/..%2f${name}`, { method: 'PUT', body: 'x' }))).toEqual({ status: 400, code: 'InvalidArgument' });
    expect(await answer(await fetch(`${endpoint}/${BUCKET}/a/..%2f..%2f${name}`, { method: 'PUT', body: 'x' }))).toEqual({
      status: 400,
      code: 'InvalidArgument',
    });
    // s3rver names an object's files after its key under the bucket's folder: nothing was written beside it.
    expect(readdirSync(join(dir, 's3')).filter((f) => f.startsWith(name))).toEqual([]);
    expect(existsSync(join(dir, `${name}._S3rver_object`))).toBe(false);
    // A key with dots that are not a segment of their own is a key like any other.
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `uploads/a..b/.c/${name}`, Body: 'kept' }));
    const back = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `uploads/a..b/.c/${name}` }));
    expect(await back.Body!.transformToString()).toBe('kept');
  });

  it('answers a key over 1 024 bytes KeyTooLongError and a path that does not decode InvalidURI, as S3 does (s3rver answered 500)', async () => {
    await expect(s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `uploads/${'k/'.repeat(600)}x`, Body: 'x' }))).rejects.toMatchObject(
      refusal('KeyTooLongError', 400),
    );
    // A segment longer than a file name holds: refused here only (S3 takes it), never a 500.
    await expect(s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `uploads/${'k'.repeat(300)}` }))).rejects.toMatchObject(refusal('KeyTooLongError', 400));
    for (const path of [`/${BUCKET}/a%00b`, '/%00', `/${BUCKET}/%E0%A4%A`])
      expect(await answer(await fetch(`${endpoint}${path}`)), path).toEqual({ status: 400, code: 'InvalidURI' });
    expect(await answer(await fetch(`${endpoint}/${'b'.repeat(300)}`))).toEqual({ status: 400, code: 'InvalidBucketName' });
  });
});
