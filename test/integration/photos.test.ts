import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import sharp from 'sharp';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { readRuntime } from '../../infra/local/runtime-info';
import { SERVED_PHOTO_HEADERS } from '../../shared/buckets';
import { fileKeys } from '../../shared/files/keys';
import { admin, newPartner, pastIndexLag, testDb } from './helpers';
import { createFile, fileOf, objectExists, PHOTO_BUCKET, postForm, readyPhoto, settled, until, upload } from './photo-helpers';

/**
 * Uploaded photos are re-encoded before they are served (issue 22, item 5):
 * no metadata, nothing appended, a display size and a thumbnail; the served
 * objects carry nosniff and a sandboxing CSP; and an object written with
 * another file's key (s3rver enforces no POST policy) is never published.
 */

type Partner = Awaited<ReturnType<typeof newPartner>>;
let a: Partner;
let b: Partner;

const HTML = Buffer.from('<html><body><script>fetch("/steal?c="+document.cookie)</script></body></html>');

/** A photo of `width` x `height` with some texture (a flat colour compresses to nothing). */
const photo = (width: number, height: number, seed = 1) =>
  sharp({ create: { width, height, channels: 3, background: { r: (seed * 97) % 256, g: 120, b: 40 }, noise: { type: 'gaussian', mean: 128, sigma: 30 } } });

/** A phone photo: JPEG with EXIF, the camera and the GPS position where it was taken (Marrakesh). */
const GPS_EXIF = {
  IFD0: { Make: 'PhoneMaker', Model: 'Phone 15' },
  IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '31/1 37/1 4000/100', GPSLongitudeRef: 'W', GPSLongitude: '7/1 59/1 2000/100' },
};

const served = async (url: string) => {
  const res = await fetch(url);
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
};

beforeAll(async () => {
  [a, b] = await Promise.all([newPartner(), newPartner()]);
});

describe('uploaded photos', () => {
  it('a JPEG with EXIF GPS is published re-encoded, without any EXIF, at 1600 px and a 400 px thumbnail', async () => {
    const original = await photo(2400, 1800).jpeg({ quality: 90 }).withExif(GPS_EXIF).toBuffer();
    const before = await sharp(original).metadata();
    expect(before.exif?.length).toBeGreaterThan(0);
    expect(before.exif!.toString('latin1')).toContain('PhoneMaker');

    const id = await upload(a.test_key, original, 'image/jpeg');
    const file = (await settled(a.test_key, id)).body;
    expect(file).toMatchObject({ status: 'READY', content_type: 'image/jpeg', url: expect.stringMatching(/\.jpg$/) });
    expect(file.thumbnail_url).toMatch(/-thumb\.jpg$/);

    const display = await served(file.url);
    const meta = await sharp(display.bytes).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 1600, height: 1200 });
    expect(meta.exif).toBeUndefined();
    expect(display.bytes.includes('Exif\0\0')).toBe(false);
    expect(display.bytes.includes('PhoneMaker')).toBe(false);

    const thumb = await served(file.thumbnail_url);
    const thumbMeta = await sharp(thumb.bytes).metadata();
    expect(thumbMeta).toMatchObject({ format: 'jpeg', width: 400, height: 300 });
    expect(thumbMeta.exif).toBeUndefined();
    // Nothing of the upload is left under pending/.
    expect(await objectExists(`pending/${id}`)).toBe(false);
  });

  it('a small photo is never upscaled', async () => {
    const id = await readyPhoto(a.test_key, await photo(300, 200).webp().toBuffer(), 'image/webp');
    const file = (await fileOf(a.test_key, id)).body;
    expect(await sharp((await served(file.url)).bytes).metadata()).toMatchObject({ format: 'webp', width: 300, height: 200 });
    expect(await sharp((await served(file.thumbnail_url)).bytes).metadata()).toMatchObject({ width: 300, height: 200 });
  });

  it('a PNG followed by HTML is published without the appended bytes; bytes that are no image are rejected', async () => {
    const png = await photo(64, 48).png().toBuffer();
    const polyglot = Buffer.concat([png, HTML]);
    const id = await readyPhoto(a.test_key, polyglot);
    const file = (await fileOf(a.test_key, id)).body;
    for (const url of [file.url, file.thumbnail_url]) {
      const { bytes } = await served(url);
      expect(bytes.includes('<script')).toBe(false);
      expect(bytes.includes('<html')).toBe(false);
      expect(await sharp(bytes).metadata()).toMatchObject({ format: 'png', width: 64, height: 48 });
    }

    // A PNG signature and nothing decodable behind it: the magic bytes pass, the decoder does not.
    const broken = Buffer.concat([png.subarray(0, 64), HTML]);
    const rejected = await upload(a.test_key, broken);
    expect((await settled(a.test_key, rejected)).body).toMatchObject({
      status: 'REJECTED',
      rejection_reason: 'unreadable_image',
      url: null,
      thumbnail_url: null,
    });
    expect(await objectExists(`pending/${rejected}`)).toBe(false);
  });

  it('serves photos with nosniff and a sandboxing CSP, their real type and an immutable cache', async () => {
    const id = await readyPhoto(a.test_key, await photo(40, 30).png().toBuffer());
    const file = (await fileOf(a.test_key, id)).body;
    for (const url of [file.url, file.thumbnail_url]) {
      const { res } = await served(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe(SERVED_PHOTO_HEADERS['Content-Security-Policy']);
      expect(res.headers.get('content-security-policy')).toContain('sandbox');
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('cache-control')).toContain('immutable');
    }
  });

  it("an upload with another partner's key is deleted, never published, and the victim's photo and pending file are unchanged", async () => {
    // The victim's photo is READY and published.
    const victimBytes = await photo(80, 60, 2).png().toBuffer();
    const victim = await readyPhoto(b.test_key, victimBytes);
    const victimFile = (await fileOf(b.test_key, victim)).body;
    const published = (await served(victimFile.url)).bytes;

    // The attacker's own upload fields, with the key changed to the victim's pending key, as text/html.
    const own = await createFile(a.test_key, 'image/png', 4096);
    const forged = { ...own.upload.fields, key: `pending/${victim}`, 'Content-Type': 'text/html' };
    expect((await postForm(own.upload.url, forged, Buffer.concat([victimBytes, HTML]), 'text/html')).status).toBeLessThan(300);
    await until(
      () => objectExists(`pending/${victim}`),
      (exists) => !exists,
    );
    expect(await objectExists(`pending/${victim}`)).toBe(false);
    expect((await fileOf(b.test_key, victim)).body).toMatchObject({ status: 'READY', url: victimFile.url, thumbnail_url: victimFile.thumbnail_url });
    expect((await served(victimFile.url)).bytes.equals(published)).toBe(true);

    // The victim's next file, still PENDING_UPLOAD: the attacker's object under its key is deleted and not checked.
    const mine = await photo(120, 90, 4).png().toBuffer();
    const pending = await createFile(b.test_key, 'image/png', mine.length);
    const attack = { ...own.upload.fields, key: `pending/${pending.id}` };
    expect((await postForm(own.upload.url, attack, await photo(10, 10, 3).png().toBuffer(), 'image/png')).status).toBeLessThan(300);
    await until(
      () => objectExists(`pending/${pending.id}`),
      (exists) => !exists,
    );
    expect((await fileOf(b.test_key, pending.id)).body).toMatchObject({ status: 'PENDING_UPLOAD', url: null });
    // The victim's own upload is then accepted, with the victim's image.
    expect((await postForm(pending.upload.url, pending.upload.fields, mine, 'image/png')).status).toBeLessThan(300);
    const ready = (await settled(b.test_key, pending.id)).body;
    expect(ready.status).toBe('READY');
    expect(await sharp((await served(ready.url)).bytes).metadata()).toMatchObject({ width: 120, height: 90 });
  });

  it('nothing but the validator publishes under photos/: a foreign object there is deleted', async () => {
    const own = await createFile(a.test_key, 'image/png', 4096);
    // A key no file owns, and the attacker's own file's published key before its check.
    for (const key of [`photos/${randomUUID()}.png`, `photos/${own.id}.png`, 'photos/index.html']) {
      const fields = { ...own.upload.fields, key, 'Content-Type': 'text/html' };
      expect((await postForm(own.upload.url, fields, HTML, 'text/html')).status).toBeLessThan(300);
      const gone = await until(
        () => objectExists(key),
        (exists) => !exists,
      );
      expect(gone, key).toBe(false);
    }
    expect((await fileOf(a.test_key, own.id)).body.status).toBe('PENDING_UPLOAD');
  });

  it('a notification of an upload gone by the time the validator reads it is taken as gone (404), not refused (403) and retried', async () => {
    // The validator may list the prefixes it reads: without it, S3 (and the local IAM layer) answers 403 for a
    // missing key, the message fails, comes back after the visibility timeout and, 5 receives later, dead-letters.
    const file = await createFile(a.test_key, 'image/png', 4096);
    const key = `pending/${file.id}`;
    const runtime = readRuntime(inject('stateDir'), inject('port'))!;
    const sqs = new SQSClient({
      region: 'us-east-1',
      endpoint: runtime.env.AWS_ENDPOINT_URL_SQS,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const QueueUrl = runtime.env.UPLOAD_QUEUE_URL!;
    // What S3 sends for an object created there (and since deleted, or never written: its record is PENDING_UPLOAD).
    const notification = { Records: [{ eventName: 'ObjectCreated:Post', s3: { bucket: { name: PHOTO_BUCKET }, object: { key, size: 4096 } } }] };
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify(notification) }));
    const drained = await until(
      async () =>
        (await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] })))
          .Attributes!,
      (q) => q.ApproximateNumberOfMessages === '0' && q.ApproximateNumberOfMessagesNotVisible === '0',
      30_000,
    );
    // Received, handled and deleted: a failed message would stay in flight for the queue's visibility timeout.
    expect(drained).toMatchObject({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' });
    const denies = join(inject('stateDir'), 'iam', 'denies.jsonl');
    const refused = existsSync(denies)
      ? readFileSync(denies, 'utf8')
          .split('\n')
          .filter((l) => l.includes(file.id))
      : [];
    expect(refused).toEqual([]);
    expect((await fileOf(a.test_key, file.id)).body.status).toBe('PENDING_UPLOAD');
  });

  it('the sweep deletes both renditions of an expired unattached photo', async () => {
    const id = await readyPhoto(a.test_key, await photo(40, 30).png().toBuffer());
    const file = (await fileOf(a.test_key, id)).body;
    const keys = [`photos/${id}.png`, `photos/${id}-thumb.png`];
    for (const key of keys) expect(await objectExists(key), key).toBe(true);
    // Aged past its expiry, as if unattached for a day.
    const { ddb, dataTable } = testDb();
    const past = new Date(Date.now() - 60_000).toISOString();
    await ddb.send(
      new UpdateCommand({
        TableName: dataTable,
        Key: fileKeys.file(id),
        UpdateExpression: 'SET expires_at = :x, gsi1sk = :s',
        ExpressionAttributeValues: { ':x': past, ':s': fileKeys.open(past, id).gsi1sk },
      }),
    );
    await pastIndexLag(); // the command reads through an index
    expect((await admin(['files:sweep'])).code).toBe(0);
    for (const key of keys) expect(await objectExists(key), key).toBe(false);
    expect((await fetch(file.thumbnail_url)).status).toBe(404);
  });
});
