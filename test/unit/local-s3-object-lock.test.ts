import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import {
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  GetObjectLockConfigurationCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionBuckets } from '../../infra/local/provision';
import { freePort, startS3 } from '../../infra/local/services';
import { BUCKETS } from '../../shared/buckets';
import { crc32Base64 } from '../../shared/kernel/s3';

/**
 * The local S3 (s3rver behind the stack's layers, as `npm start` runs it, provisioned as the stack provisions it)
 * refuses what S3 refuses on an Object Lock bucket and in a multipart upload's checksums
 * (infra/local/s3-checksums.ts), and the settlement documents are stored there through the AWS SDK.
 */
const LOCKED = BUCKETS.settlementDocuments!.name;
const PLAIN = BUCKETS.reviewPhotos!.name;
let dir: string;
let stop: () => Promise<void>;
let endpoint: string;
/** As the service's clients are: the SDK adds a CRC32 to every upload it can (request_checksum_calculation WHEN_SUPPORTED). */
let s3: S3Client;
/** A client that adds no checksum of its own (WHEN_REQUIRED), as other S3 clients and older SDKs. */
let bare: S3Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ptbs-s3-'));
  const h = await startS3(dir, await freePort());
  stop = h.stop;
  endpoint = h.endpoint;
  const config = { region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  s3 = new S3Client(config);
  bare = new S3Client({ ...config, requestChecksumCalculation: 'WHEN_REQUIRED' });
  await provisionBuckets(s3);
});
afterAll(async () => {
  await stop();
  rmSync(dir, { recursive: true, force: true });
});

const key = (name: string) => `object-lock-test/${Date.now()}-${Math.random().toString(36).slice(2)}/${name}`;
const crcOf = (b: Buffer) => crc32Base64(crc32(b));
const read = async (Bucket: string, Key: string) => Buffer.from(await (await s3.send(new GetObjectCommand({ Bucket, Key }))).Body!.transformToByteArray());
/** Bytes compared by length and SHA-256 (a deep equality of megabytes takes the matcher a minute). */
const digest = (b: Buffer) => ({ bytes: b.length, sha256: createHash('sha256').update(b).digest('hex') });
/** A part of 5 MB, S3's least for every part but the last. */
const part = (fill: string) => Buffer.alloc(5 * 1024 * 1024, fill);
const refusal = (name: string, status: number, message?: string) => ({
  name,
  $metadata: expect.objectContaining({ httpStatusCode: status }),
  ...(message ? { message } : {}),
});

describe('the local S3 and Object Lock', () => {
  it("gives the settlement documents' bucket Object Lock with the CDK's default retention; a bucket without has no configuration (404)", async () => {
    const lock = await s3.send(new GetObjectLockConfigurationCommand({ Bucket: LOCKED }));
    expect(lock.ObjectLockConfiguration).toEqual({ ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: 3653 } } });
    await expect(s3.send(new GetObjectLockConfigurationCommand({ Bucket: PLAIN }))).rejects.toMatchObject(
      refusal('ObjectLockConfigurationNotFoundError', 404, 'Object Lock configuration does not exist for this bucket'),
    );
  });

  it('refuses a PutObject without Content-MD5 or a checksum on the Object Lock bucket (400 InvalidRequest), and takes each form a client sends', async () => {
    const body = Buffer.from('a;b\r\n1;2\r\n');
    const Key = key('statement.csv');
    await expect(bare.send(new PutObjectCommand({ Bucket: LOCKED, Key, Body: body }))).rejects.toMatchObject(
      refusal('InvalidRequest', 400, 'Content-MD5 OR x-amz-checksum- HTTP header is required for Put Object requests with Object Lock parameters'),
    );
    await expect(read(LOCKED, Key)).rejects.toMatchObject({ name: 'NoSuchKey' });
    // Without Object Lock, nothing is required.
    await bare.send(new PutObjectCommand({ Bucket: PLAIN, Key, Body: body }));

    // Content-MD5; the SDK's CRC32 header (a buffer); the SDK's aws-chunked body with its CRC32 in a trailer (a stream).
    const md5 = createHash('md5').update(body).digest('base64');
    await bare.send(new PutObjectCommand({ Bucket: LOCKED, Key: `${Key}.md5`, Body: body, ContentMD5: md5 }));
    const put = await s3.send(new PutObjectCommand({ Bucket: LOCKED, Key: `${Key}.crc`, Body: body }));
    expect(put.ChecksumCRC32).toBe(crcOf(body));
    await s3.send(new PutObjectCommand({ Bucket: LOCKED, Key: `${Key}.chunked`, Body: Readable.from([body]), ContentLength: body.length }));
    for (const k of ['md5', 'crc', 'chunked']) expect(await read(LOCKED, `${Key}.${k}`)).toEqual(body);
    const chunked = await s3.send(new GetObjectCommand({ Bucket: LOCKED, Key: `${Key}.chunked` }));
    expect(chunked.ContentEncoding).toBeUndefined();
  });

  it("refuses a checksum or a Content-MD5 that is not the body's (400 BadDigest), storing nothing", async () => {
    const Key = key('statement.csv');
    const body = Buffer.from('a;b\r\n');
    await expect(s3.send(new PutObjectCommand({ Bucket: LOCKED, Key, Body: body, ChecksumCRC32: crcOf(Buffer.from('other')) }))).rejects.toMatchObject(
      refusal('BadDigest', 400, 'The CRC32 you specified did not match the calculated checksum.'),
    );
    const md5 = createHash('md5').update('other').digest('base64');
    await expect(bare.send(new PutObjectCommand({ Bucket: LOCKED, Key, Body: body, ContentMD5: md5 }))).rejects.toMatchObject(
      refusal('BadDigest', 400, 'The Content-MD5 you specified did not match what we received.'),
    );
    await expect(read(LOCKED, Key)).rejects.toMatchObject({ name: 'NoSuchKey' });
  });

  it("refuses a part without one on the Object Lock bucket (Put Part), and a part whose checksum is not of its upload's algorithm", async () => {
    const Key = key('statement.csv');
    const plainUpload = (await s3.send(new CreateMultipartUploadCommand({ Bucket: LOCKED, Key }))).UploadId!;
    await expect(bare.send(new UploadPartCommand({ Bucket: LOCKED, Key, UploadId: plainUpload, PartNumber: 1, Body: part('a') }))).rejects.toMatchObject(
      refusal('InvalidRequest', 400, 'Content-MD5 OR x-amz-checksum- HTTP header is required for Put Part requests with Object Lock parameters'),
    );
    // What storeDocumentStream did: an upload created without an algorithm, parts with the SDK's CRC32.
    await expect(s3.send(new UploadPartCommand({ Bucket: LOCKED, Key, UploadId: plainUpload, PartNumber: 1, Body: part('a') }))).rejects.toMatchObject(
      refusal('InvalidRequest', 400, 'Checksum Type mismatch occurred, expected checksum Type: null, actual checksum Type: crc32'),
    );
    const crcUpload = (await s3.send(new CreateMultipartUploadCommand({ Bucket: LOCKED, Key, ChecksumAlgorithm: 'CRC32' }))).UploadId!;
    const md5 = createHash('md5').update(part('a')).digest('base64');
    await expect(
      bare.send(new UploadPartCommand({ Bucket: LOCKED, Key, UploadId: crcUpload, PartNumber: 1, Body: part('a'), ContentMD5: md5 })),
    ).rejects.toMatchObject(refusal('InvalidRequest', 400, 'Checksum Type mismatch occurred, expected checksum Type: crc32, actual checksum Type: null'));
    await expect(
      s3.send(
        new UploadPartCommand({
          Bucket: LOCKED,
          Key,
          UploadId: crcUpload,
          PartNumber: 1,
          Body: part('a'),
          ChecksumSHA256: createHash('sha256').update(part('a')).digest('base64'),
        }),
      ),
    ).rejects.toMatchObject(refusal('InvalidRequest', 400, 'Checksum Type mismatch occurred, expected checksum Type: crc32, actual checksum Type: sha256'));
    await expect(s3.send(new UploadPartCommand({ Bucket: LOCKED, Key, UploadId: 'f'.repeat(32), PartNumber: 1, Body: part('a') }))).rejects.toMatchObject(
      refusal('NoSuchUpload', 404),
    );
    // Without Object Lock, a part without checksum is taken.
    const photoUpload = (await bare.send(new CreateMultipartUploadCommand({ Bucket: PLAIN, Key }))).UploadId!;
    await bare.send(new UploadPartCommand({ Bucket: PLAIN, Key, UploadId: photoUpload, PartNumber: 1, Body: part('a') }));
  });

  it('refuses a completion whose parts lack the checksum of the create, list another algorithm, or differ from what was uploaded', async () => {
    const Key = key('statement.csv');
    const bodies = [part('a'), Buffer.from('tail')];
    const UploadId = (await s3.send(new CreateMultipartUploadCommand({ Bucket: LOCKED, Key, ChecksumAlgorithm: 'CRC32' }))).UploadId!;
    expect((await s3.send(new CreateMultipartUploadCommand({ Bucket: LOCKED, Key: `${Key}.x`, ChecksumAlgorithm: 'CRC32' }))).ChecksumType).toBe('COMPOSITE');
    const parts: CompletedPart[] = [];
    for (const [i, Body] of bodies.entries()) {
      const r = await s3.send(new UploadPartCommand({ Bucket: LOCKED, Key, UploadId, PartNumber: i + 1, Body, ChecksumAlgorithm: 'CRC32' }));
      expect(r.ChecksumCRC32).toBe(crcOf(Body));
      parts.push({ PartNumber: i + 1, ETag: r.ETag, ChecksumCRC32: r.ChecksumCRC32 });
    }
    const completing = (Parts: CompletedPart[], more: { ChecksumCRC32?: string } = {}) =>
      s3.send(new CompleteMultipartUploadCommand({ Bucket: LOCKED, Key, UploadId, MultipartUpload: { Parts }, ...more }));
    await expect(completing(parts.map(({ PartNumber, ETag }) => ({ PartNumber, ETag })))).rejects.toMatchObject(
      refusal(
        'InvalidRequest',
        400,
        'The upload was created using a crc32 checksum. The complete request must include the checksum for each part. It was missing for part 1 in the request.',
      ),
    );
    await expect(completing([parts[0]!, { ...parts[1]!, ChecksumCRC32: parts[0]!.ChecksumCRC32 }])).rejects.toMatchObject(refusal('InvalidPart', 400));
    await expect(completing([{ ...parts[0]!, ETag: '"0123"' }, parts[1]!])).rejects.toMatchObject(refusal('InvalidPart', 400));
    const { ChecksumCRC32: _, ...first } = parts[0]!;
    await expect(completing([{ ...first, ChecksumCRC32C: 'AAAAAA==' }, parts[1]!])).rejects.toMatchObject(
      refusal('BadDigest', 400, 'The crc32c you specified for part 1 did not match what we received.'),
    );
    // A composite checksum is the CRC32 of the parts' CRC32s, and the number of parts.
    await expect(completing(parts, { ChecksumCRC32: `${crcOf(Buffer.concat(bodies))}` })).rejects.toMatchObject(
      refusal('BadDigest', 400, 'The CRC32 you specified did not match the calculated checksum.'),
    );
    const composite = crcOf(Buffer.concat(parts.map((p) => Buffer.from(p.ChecksumCRC32!, 'base64'))));
    await completing(parts, { ChecksumCRC32: `${composite}-2` });
    expect(digest(await read(LOCKED, Key))).toEqual(digest(Buffer.concat(bodies)));
  });

  it("checks a FULL_OBJECT upload's completion against the whole object's CRC32, and its checksum type against the create's", async () => {
    const Key = key('statement.csv');
    const bodies = [part('a'), part('b'), Buffer.from('tail')];
    const UploadId = (await s3.send(new CreateMultipartUploadCommand({ Bucket: LOCKED, Key, ChecksumAlgorithm: 'CRC32', ChecksumType: 'FULL_OBJECT' })))
      .UploadId!;
    const Parts: CompletedPart[] = [];
    for (const [i, Body] of bodies.entries()) {
      const ChecksumCRC32 = crcOf(Body);
      const r = await s3.send(new UploadPartCommand({ Bucket: LOCKED, Key, UploadId, PartNumber: i + 1, Body, ChecksumCRC32 }));
      Parts.push({ PartNumber: i + 1, ETag: r.ETag, ChecksumCRC32 });
    }
    const completing = (more: object) => s3.send(new CompleteMultipartUploadCommand({ Bucket: LOCKED, Key, UploadId, MultipartUpload: { Parts }, ...more }));
    await expect(completing({ ChecksumType: 'FULL_OBJECT', ChecksumCRC32: crcOf(Buffer.concat(bodies.slice(0, 2))) })).rejects.toMatchObject(
      refusal('BadDigest', 400, 'The CRC32 you specified did not match the calculated checksum.'),
    );
    await expect(completing({ ChecksumType: 'COMPOSITE' })).rejects.toMatchObject(
      refusal('BadDigest', 400, 'The upload was created using the FULL_OBJECT checksum mode. The complete request must use the same checksum mode.'),
    );
    await completing({ ChecksumType: 'FULL_OBJECT', ChecksumCRC32: crcOf(Buffer.concat(bodies)) });
    expect(digest(await read(LOCKED, Key))).toEqual(digest(Buffer.concat(bodies)));
  });
});

describe('settlement documents on the Object Lock bucket', () => {
  beforeAll(() => {
    Object.assign(process.env, {
      SETTLEMENT_BUCKET: LOCKED,
      AWS_ENDPOINT_URL_S3: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      // The service's client adds no checksum of its own: the documents carry theirs whatever the client's configuration.
      AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    });
  });
  /** The object's checksum as S3 keeps it (HeadObject with x-amz-checksum-mode: ENABLED). */
  const checksumOf = async (Key: string) => {
    const h = await s3.send(new HeadObjectCommand({ Bucket: LOCKED, Key, ChecksumMode: 'ENABLED' }));
    return { ChecksumCRC32: h.ChecksumCRC32, ChecksumType: h.ChecksumType };
  };

  /** Statement rows of about 100 bytes, produced one at a time as the renderer yields them. */
  function* rows(count: number): Generator<Buffer> {
    for (let i = 0; i < count; i++) {
      yield Buffer.from(`PTB-${String(i).padStart(7, '0')}-ABCD;REF-${i};2026-11-20;2026-10-02T08:00:00.000Z;Medina walk;CONFIRMED;${10_000 + i}\r\n`);
    }
  }
  const whole = (count: number) => Buffer.concat([...rows(count)]);

  it('stores a statement over its 8 MB part size by a multipart upload S3 takes; it reads back whole, its checksum the CRC32 of its bytes', async () => {
    const { PART_BYTES, readDocument, storeDocumentStream } = await import('../../shared/settlements/documents');
    const count = 220_000;
    const expected = whole(count);
    // Three parts: two of 8 MB and the rest.
    expect(expected.length).toBeGreaterThan(2 * PART_BYTES);
    const Key = key('statement.csv');
    const stored = await storeDocumentStream(Key, 'statement', rows(count), 'statement.csv');
    expect(stored).toEqual({ key: Key, bytes: expected.length, sha256: createHash('sha256').update(expected).digest('hex') });
    // The SDK checks the body it reads against that checksum too.
    expect(digest(await readDocument(Key))).toEqual(digest(expected));
    expect(await checksumOf(Key)).toEqual({ ChecksumCRC32: crcOf(expected), ChecksumType: 'FULL_OBJECT' });
  }, 60_000);

  it('stores a document of less than a part with one PutObject carrying its CRC32, the same checksum', async () => {
    const { readDocument, storeDocumentStream } = await import('../../shared/settlements/documents');
    const Key = key('statement.csv');
    await storeDocumentStream(Key, 'statement', rows(100), 'statement.csv');
    expect(digest(await readDocument(Key))).toEqual(digest(whole(100)));
    expect(await checksumOf(Key)).toEqual({ ChecksumCRC32: crcOf(whole(100)), ChecksumType: 'FULL_OBJECT' });
  });
});
