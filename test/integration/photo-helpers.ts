import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { expect, inject } from 'vitest';
import { readRuntime } from '../../infra/local/runtime-info';
import { api, write } from './helpers';

/** A real 1x1 PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

export const PHOTO_BUCKET = 'review-photos';

export const until = async <T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** POST /files: the file and its presigned POST. */
export async function createFile(key: string, contentType: string, size: number) {
  const created = await write('POST', '/files', key, { purpose: 'review_photo', content_type: contentType, size_bytes: size });
  expect(created.status, created.text).toBe(201);
  return created.body as { id: string; upload: { url: string; fields: Record<string, string> } };
}

/** The presigned multipart POST form to S3: the fields first, then the file. */
export async function postForm(url: string, fields: Record<string, string>, bytes: Buffer, contentType: string) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([bytes], { type: contentType }), 'photo');
  return fetch(url, { method: 'POST', body: form });
}

/** Uploads bytes the way a partner does: POST /files, then the presigned multipart POST form to S3. */
export async function upload(key: string, bytes: Buffer, contentType = 'image/png', size = bytes.length) {
  const created = await createFile(key, contentType, size);
  const res = await postForm(created.upload.url, created.upload.fields, bytes, contentType);
  expect(res.status).toBeLessThan(300);
  return created.id;
}

export const fileOf = (key: string, id: string) => api('GET', `/files/${id}`, { key });
export const settled = (key: string, id: string) =>
  until(
    () => fileOf(key, id),
    (r) => r.body.status !== 'PENDING_UPLOAD',
  );
export async function readyPhoto(key: string, bytes = PNG, contentType = 'image/png') {
  const id = await upload(key, bytes, contentType);
  expect((await settled(key, id)).body.status).toBe('READY');
  return id;
}

let s3: S3Client | undefined;
/** The local stack's S3 server, as the functions reach it. */
export function localS3(): S3Client {
  const runtime = readRuntime(inject('stateDir'), inject('port'))!;
  s3 ??= new S3Client({
    region: 'us-east-1',
    endpoint: runtime.env.AWS_ENDPOINT_URL_S3,
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  return s3;
}

export const objectExists = (key: string) =>
  localS3()
    .send(new HeadObjectCommand({ Bucket: PHOTO_BUCKET, Key: key }))
    .then(
      () => true,
      () => false,
    );
