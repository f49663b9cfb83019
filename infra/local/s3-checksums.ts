import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';

const require = createRequire(import.meta.url);

/** s3rver's error: its error handler answers it in S3's XML error shape (Code, Message, the details) with the code's status. */
type S3ErrorType = Error & { status: number };
export const S3Error: new (code: string, message: string, detail?: Record<string, string>) => S3ErrorType = require('s3rver/lib/models/error');

/** The part of s3rver's filesystem store the layer reads: where it keeps a bucket's resources and its uploads. */
interface Store {
  getBucket(name: string): Promise<unknown>;
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
}

/** The slice of a Koa context (s3rver is a Koa app) the layer uses. */
interface Ctx {
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  get(field: string): string;
  set(field: string, value: string): void;
  /** The request's body as s3rver reads it (PutObject, UploadPart, CompleteMultipartUpload): the layer may hand it a copy it read. */
  req: AsyncIterable<Buffer>;
  body: unknown;
  status: number;
  store: Store;
}
type Next = () => Promise<unknown>;

const ALGORITHMS = ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'] as const;
type Algorithm = (typeof ALGORITHMS)[number];
const isAlgorithm = (a: string): a is Algorithm => (ALGORITHMS as readonly string[]).includes(a);

interface Digest {
  update(b: Buffer): void;
  digest(): Buffer;
}
/** The checksums the layer computes. Node has no CRC32C nor CRC64NVME: those values are taken as sent. */
const DIGESTS: Partial<Record<Algorithm, () => Digest>> = {
  crc32: () => {
    let crc = 0;
    return {
      update: (b) => {
        crc = crc32(b, crc);
      },
      digest: () => {
        const out = Buffer.alloc(4);
        out.writeUInt32BE(crc >>> 0);
        return out;
      },
    };
  },
  sha1: () => createHash('sha1'),
  sha256: () => createHash('sha256'),
};

const invalidRequest = (message: string) => new S3Error('InvalidRequest', message);
const badDigest = (message: string) => new S3Error('BadDigest', message);
const withStatus = (e: S3ErrorType, status: number) => Object.assign(e, { status });

async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c);
  return Buffer.concat(chunks);
}

/** The bucket's Object Lock configuration (PutObjectLockConfiguration), kept beside s3rver's own bucket resources. */
interface LockConfiguration {
  retention?: { mode: string; days?: number; years?: number };
}
const lockFile = (store: Store, bucket: string) => store.getResourcePath(bucket, undefined, 'object-lock.json');
const lockOf = (store: Store, bucket: string): Promise<LockConfiguration | undefined> =>
  readFile(lockFile(store, bucket), 'utf8').then(JSON.parse, () => undefined);

const xmlValue = (xml: string, tag: string) =>
  new RegExp(`<${tag}>([^<]*)</${tag}>`)
    .exec(xml)?.[1]
    ?.replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

async function existingBucket(store: Store, bucket: string): Promise<void> {
  if (!(await store.getBucket(bucket))) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });
}

/** PutObjectLockConfiguration and GetObjectLockConfiguration, which s3rver refuses (MethodNotAllowed, NotImplemented). */
async function lockConfiguration(ctx: Ctx, bucket: string): Promise<void> {
  await existingBucket(ctx.store, bucket);
  if (ctx.method === 'PUT') {
    const xml = (await readAll(ctx.req)).toString('utf8');
    if (xmlValue(xml, 'ObjectLockEnabled') !== 'Enabled') {
      throw new S3Error('MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema');
    }
    const mode = xmlValue(xml, 'Mode');
    const [days, years] = [xmlValue(xml, 'Days'), xmlValue(xml, 'Years')].map((v) => (v ? Number(v) : undefined));
    const configuration: LockConfiguration = mode ? { retention: { mode, days, years } } : {};
    await writeFile(lockFile(ctx.store, bucket), JSON.stringify(configuration));
    ctx.body = '';
    return;
  }
  const configuration = await lockOf(ctx.store, bucket);
  if (!configuration) {
    throw withStatus(
      new S3Error('ObjectLockConfigurationNotFoundError', 'Object Lock configuration does not exist for this bucket', { BucketName: bucket }),
      404,
    );
  }
  const r = configuration.retention;
  const retention = r && { Mode: r.mode, ...(r.days ? { Days: r.days } : {}), ...(r.years ? { Years: r.years } : {}) };
  ctx.body = { ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled', ...(retention ? { Rule: { DefaultRetention: retention } } : {}) } };
}

/** CreateBucket with x-amz-bucket-object-lock-enabled: the bucket has Object Lock, without a default retention yet. */
async function createBucket(ctx: Ctx, next: Next, bucket: string): Promise<void> {
  await next();
  if (ctx.get('x-amz-bucket-object-lock-enabled').toLowerCase() !== 'true') return;
  if (!(await lockOf(ctx.store, bucket))) await writeFile(lockFile(ctx.store, bucket), JSON.stringify({}));
}

/**
 * A multipart upload as s3rver keeps it: a directory with the create's request headers (`metadata`) and each part's
 * bytes (`<n>`) and MD5 (`<n>.md5`). Its checksum algorithm and type are the create's x-amz-checksum-algorithm
 * and x-amz-checksum-type (COMPOSITE by default, FULL_OBJECT for CRC64NVME: CreateMultipartUpload's reference).
 */
interface Upload {
  id: string;
  dir: string;
  headers: Record<string, string>;
  algorithm?: Algorithm;
  type?: string;
}
async function uploadOf(store: Store, bucket: string, id: unknown): Promise<Upload> {
  const noSuchUpload = () =>
    withStatus(
      new S3Error('NoSuchUpload', 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.', {
        UploadId: String(id),
      }),
      404,
    );
  // s3rver's ids are 32 hex digits; anything else would name another path.
  if (typeof id !== 'string' || !/^[0-9a-f]{32}$/.test(id)) throw noSuchUpload();
  const dir = join(store.getResourcePath(bucket, undefined, 'uploads'), id);
  const headers: Record<string, string> = await readFile(join(dir, 'metadata'), 'utf8').then(JSON.parse, () => {
    throw noSuchUpload();
  });
  const algorithm = headers['x-amz-checksum-algorithm']?.toLowerCase();
  if (!algorithm || !isAlgorithm(algorithm)) return { id, dir, headers };
  return { id, dir, headers, algorithm, type: headers['x-amz-checksum-type']?.toUpperCase() ?? (algorithm === 'crc64nvme' ? 'FULL_OBJECT' : 'COMPOSITE') };
}

/**
 * The checksum a request carries: an x-amz-checksum-* header with its value, or the AWS SDK's form for a streamed
 * body, aws-chunked with the value in a trailer that x-amz-trailer announces (the value is read with the body).
 */
function sentChecksum(ctx: Ctx): { algorithm: Algorithm; value?: string } | undefined {
  for (const algorithm of ALGORITHMS) {
    const value = ctx.get(`x-amz-checksum-${algorithm}`);
    if (value) return { algorithm, value };
  }
  const trailer = /^x-amz-checksum-(\w+)$/i.exec(ctx.get('x-amz-trailer').trim())?.[1]?.toLowerCase();
  return trailer && isAlgorithm(trailer) ? { algorithm: trailer } : undefined;
}

/** An aws-chunked body (`<hex size>[;chunk-signature=...]\r\n<bytes>\r\n` ... `0\r\n`, then the trailers): its bytes and trailers. */
function decodeAwsChunked(raw: Buffer): { body: Buffer; trailers: Record<string, string> } {
  const pieces: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    const size = Number.parseInt(raw.subarray(at, eol).toString('latin1').split(';')[0]!, 16);
    if (eol < 0 || Number.isNaN(size)) throw new S3Error('IncompleteBody', 'The request body terminated unexpectedly');
    at = eol + 2;
    if (size === 0) break;
    pieces.push(raw.subarray(at, at + size));
    at += size + 2;
  }
  const trailers: Record<string, string> = {};
  for (const line of raw.subarray(at).toString('latin1').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) trailers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { body: Buffer.concat(pieces), trailers };
}

/** Whether an upload has Object Lock parameters: its own (or its multipart create's) x-amz-object-lock-*, or the bucket's default retention. */
async function locked(store: Store, bucket: string, headers: Record<string, unknown>): Promise<boolean> {
  if (Object.keys(headers).some((h) => h.startsWith('x-amz-object-lock-'))) return true;
  return (await lockOf(store, bucket))?.retention !== undefined;
}

/**
 * PutObject and UploadPart. On Object Lock parameters S3 takes only an upload with Content-MD5 or a checksum: "The
 * Content-MD5 or x-amz-sdk-checksum-algorithm header is required for any request to upload an object with a
 * retention period configured using Amazon S3 Object Lock" (PutObject's API reference; x-amz-sdk-checksum-algorithm
 * comes with an x-amz-checksum-* header or trailer); S3 answers InvalidRequest "Content-MD5 OR x-amz-checksum-
 * HTTP header is required for Put Object (Put Part) requests with Object Lock parameters". A part's checksum must
 * be of its upload's algorithm ("Checksum Type mismatch occurred, expected checksum Type: crc32, actual checksum
 * Type: null"; a FULL_OBJECT upload takes a part without one). A checksum or Content-MD5 that does not match the
 * bytes is BadDigest. The body is read whole before s3rver stores it (local sizes), decoded if aws-chunked.
 */
async function upload(ctx: Ctx, next: Next, bucket: string, key: string, part?: { upload: Upload }): Promise<void> {
  const sent = sentChecksum(ctx);
  const md5 = ctx.get('content-md5');
  if (!sent && !md5 && (await locked(ctx.store, bucket, part?.upload.headers ?? ctx.headers))) {
    throw invalidRequest(`Content-MD5 OR x-amz-checksum- HTTP header is required for ${part ? 'Put Part' : 'Put Object'} requests with Object Lock parameters`);
  }
  if (part) {
    const { algorithm, type } = part.upload;
    if (sent?.algorithm !== algorithm && !(sent === undefined && type === 'FULL_OBJECT')) {
      throw invalidRequest(
        `Checksum Type mismatch occurred, expected checksum Type: ${algorithm ?? 'null'}, actual checksum Type: ${sent?.algorithm ?? 'null'}`,
      );
    }
  }
  const chunked = ctx
    .get('content-encoding')
    .split(',')
    .some((e) => e.trim() === 'aws-chunked');
  if (sent || md5 || chunked) {
    let body = await readAll(ctx.req);
    if (chunked) {
      const decoded = decodeAwsChunked(body);
      body = decoded.body;
      if (sent && !sent.value) sent.value = decoded.trailers[`x-amz-checksum-${sent.algorithm}`];
    }
    const make = sent && DIGESTS[sent.algorithm];
    if (make && sent?.value) {
      const d = make();
      d.update(body);
      if (d.digest().toString('base64') !== sent.value)
        throw badDigest(`The ${sent.algorithm.toUpperCase()} you specified did not match the calculated checksum.`);
    }
    if (md5 && createHash('md5').update(body).digest('base64') !== md5) throw badDigest('The Content-MD5 you specified did not match what we received.');
    ctx.req = Readable.from([body]);
  }
  await next();
  // S3 answers with the checksum it checked.
  if (sent?.value) ctx.set(`x-amz-checksum-${sent.algorithm}`, sent.value);
  if (part) return;
  const checksum = sent?.value ? { algorithm: sent.algorithm, value: sent.value, type: 'FULL_OBJECT' } : undefined;
  await keep(ctx.store, bucket, key, { checksum, dropAwsChunked: chunked });
}

/**
 * What S3 keeps with an object that s3rver does not: its checksum (returned with x-amz-checksum-mode: ENABLED) and
 * its Content-Encoding without aws-chunked. Written into s3rver's metadata file of the object, which s3rver rewrites
 * on every write (an object written since without a checksum has none) and does not answer itself.
 */
interface Kept {
  checksum?: { algorithm: Algorithm; value: string; type: string };
  dropAwsChunked?: boolean;
}
async function keep(store: Store, bucket: string, rawKey: string, kept: Kept): Promise<void> {
  const file = store.getResourcePath(bucket, decodeURIComponent(rawKey), 'metadata.json');
  const metadata: Record<string, string> = JSON.parse(await readFile(file, 'utf8'));
  if (kept.checksum) {
    metadata[`x-amz-checksum-${kept.checksum.algorithm}`] = kept.checksum.value;
    metadata['x-amz-checksum-type'] = kept.checksum.type;
  }
  const encoding = (metadata['content-encoding'] ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e && !(kept.dropAwsChunked && e === 'aws-chunked'));
  if (encoding.length) metadata['content-encoding'] = encoding.join(',');
  else delete metadata['content-encoding'];
  await writeFile(file, JSON.stringify(metadata, null, 2));
}

/** GetObject and HeadObject with x-amz-checksum-mode: ENABLED (the AWS SDK's default): the object's checksum and its type, if it has one. */
async function withChecksum(ctx: Ctx, next: Next, bucket: string, rawKey: string): Promise<void> {
  await next();
  if (ctx.status !== 200) return;
  const file = ctx.store.getResourcePath(bucket, decodeURIComponent(rawKey), 'metadata.json');
  const metadata: Record<string, string> = await readFile(file, 'utf8').then(JSON.parse, () => ({}));
  for (const [field, value] of Object.entries(metadata)) if (field.startsWith('x-amz-checksum-')) ctx.set(field, value);
}

/** CreateMultipartUpload: S3 answers with the upload's checksum algorithm and type. */
async function createUpload(ctx: Ctx, next: Next): Promise<void> {
  await next();
  const algorithm = ctx.get('x-amz-checksum-algorithm');
  if (!algorithm) return;
  ctx.set('x-amz-checksum-algorithm', algorithm.toUpperCase());
  ctx.set('x-amz-checksum-type', ctx.get('x-amz-checksum-type').toUpperCase() || (algorithm.toUpperCase() === 'CRC64NVME' ? 'FULL_OBJECT' : 'COMPOSITE'));
}

interface CompletedPart {
  number: number;
  etag: string;
  checksums: [Algorithm, string][];
}
function completedParts(xml: string): CompletedPart[] {
  return [...xml.matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map(([, part]) => ({
    number: Number(xmlValue(part!, 'PartNumber')),
    etag: (xmlValue(part!, 'ETag') ?? '').replace(/"/g, ''),
    checksums: ALGORITHMS.flatMap((a) => {
      const v = xmlValue(part!, `Checksum${a.toUpperCase()}`);
      return v ? [[a, v] as [Algorithm, string]] : [];
    }),
  }));
}

/**
 * CompleteMultipartUpload, checked as S3 checks it (s3rver checks nothing): each part listed must be one uploaded,
 * with its ETag (InvalidPart); on an upload created with a checksum algorithm, each part must list its checksum
 * ("The upload was created using a crc32 checksum. The complete request must include the checksum for each part.
 * It was missing for part 1 in the request."), of that algorithm (BadDigest) and equal to the one uploaded
 * (InvalidPart); an upload created without one takes no part checksum (InvalidPart). An x-amz-checksum-type must be
 * the create's, and the object's checksum, if sent, must be the one of the parts (BadDigest: CompleteMultipartUpload's
 * reference): for FULL_OBJECT the checksum of the whole object, for COMPOSITE the checksum of the parts' checksums
 * followed by `-<parts>`.
 */
async function complete(ctx: Ctx, next: Next, bucket: string, key: string, upload: Upload): Promise<void> {
  const xml = await readAll(ctx.req);
  ctx.req = Readable.from([xml]);
  const parts = completedParts(xml.toString('utf8'));
  const { algorithm, type } = upload;
  const make = algorithm && DIGESTS[algorithm];
  const whole = type === 'FULL_OBJECT' && make ? make() : undefined;
  const partDigests: Buffer[] = [];
  for (const p of parts) {
    const file = join(upload.dir, String(p.number));
    const etag = await readFile(`${file}.md5`, 'utf8').catch(() => undefined);
    const invalidPart = () =>
      new S3Error(
        'InvalidPart',
        "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
        { UploadId: upload.id, PartNumber: String(p.number), ETag: p.etag },
      );
    if (etag === undefined || etag !== p.etag) throw invalidPart();
    if (!algorithm) {
      if (p.checksums.length) throw invalidPart();
      continue;
    }
    const other = p.checksums.find(([a]) => a !== algorithm);
    if (other) throw badDigest(`The ${other[0]} you specified for part ${p.number} did not match what we received.`);
    const listed = p.checksums[0]?.[1];
    if (!listed) {
      throw invalidRequest(
        `The upload was created using a ${algorithm} checksum. The complete request must include the checksum for each part. It was missing for part ${p.number} in the request.`,
      );
    }
    if (!make) continue;
    const d = make();
    for await (const c of createReadStream(file)) {
      d.update(c as Buffer);
      whole?.update(c as Buffer);
    }
    const digest = d.digest();
    if (digest.toString('base64') !== listed) throw invalidPart();
    partDigests.push(digest);
  }
  const mode = ctx.get('x-amz-checksum-type').toUpperCase();
  if (mode && type && mode !== type) {
    throw badDigest(`The upload was created using the ${type} checksum mode. The complete request must use the same checksum mode.`);
  }
  if (!algorithm || !type) {
    await next();
    return;
  }
  let computed = whole?.digest().toString('base64');
  if (make && !whole) {
    const composite = make();
    composite.update(Buffer.concat(partDigests));
    computed = `${composite.digest().toString('base64')}-${parts.length}`;
  }
  const sent = ctx.get(`x-amz-checksum-${algorithm}`);
  if (sent && computed && sent !== computed) throw badDigest(`The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`);
  await next();
  const value = computed ?? sent;
  if (value) await keep(ctx.store, bucket, key, { checksum: { algorithm, value, type } });
}

/**
 * S3's checksum rules, which s3rver does not apply: Object Lock (a bucket's configuration, its default retention
 * requiring a checksum on every upload) and the checksums of uploads and multipart uploads (see `upload` and
 * `complete`). Placed just before s3rver's router: after its virtual-host rewrite, so `ctx.path` is
 * `/<bucket>/<key>`; a refusal is thrown as s3rver's error, which it answers in S3's XML error shape.
 *
 * Sources: S3's API reference (PutObject's ContentMD5 and ChecksumAlgorithm, CreateMultipartUpload's
 * ChecksumType, CompletedPart, CompleteMultipartUpload's ChecksumType) and "Checking object integrity" in the
 * user guide; the messages are S3's as its answers are quoted in versity/versitygw#1776 and #1342,
 * s3tools/s3cmd#1436, apache/opendal#4533 and #4580, boto/botocore#3216.
 */
export function checksumsAsS3() {
  return async (ctx: Ctx, next: Next) => {
    const [, bucket = '', ...rest] = ctx.path.split('/');
    const key = rest.join('/');
    const q = ctx.query;
    // A subresource (?uploads, ?tagging, ...) names the operation; the SDK's x-id, a presigned request's X-Amz-* and
    // a GET's response-* parameters do not.
    const plain = Object.keys(q).every((k) => /^(x-id$|x-amz-|response-)/i.test(k));
    if (!bucket) return next();
    if (!key) {
      if ('object-lock' in q && (ctx.method === 'PUT' || ctx.method === 'GET')) return lockConfiguration(ctx, bucket);
      if (ctx.method === 'PUT' && plain) return createBucket(ctx, next, bucket);
      return next();
    }
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && plain && ctx.get('x-amz-checksum-mode').toUpperCase() === 'ENABLED' && !ctx.get('range')) {
      return withChecksum(ctx, next, bucket, key);
    }
    if (ctx.method === 'POST' && 'uploads' in q) return createUpload(ctx, next);
    if (ctx.method === 'POST' && 'uploadId' in q) return complete(ctx, next, bucket, key, await uploadOf(ctx.store, bucket, q.uploadId));
    if (ctx.method !== 'PUT' || ctx.get('x-amz-copy-source')) return next();
    if ('uploadId' in q) return upload(ctx, next, bucket, key, { upload: await uploadOf(ctx.store, bucket, q.uploadId) });
    if (plain) return upload(ctx, next, bucket, key);
    return next();
  };
}
