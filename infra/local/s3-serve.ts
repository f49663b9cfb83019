import { BUCKETS } from '../../shared/buckets';
import { percentDecoded } from './http-guard';
import { S3Error } from './s3-checksums';

/** A bucket's CORS configuration as s3rver keeps it (lib/models/config.js, S3CorsConfiguration). */
interface StoredCors {
  matchRule(origin: string, method: string): { maxAgeSeconds?: number | string } | undefined;
}

/** The slice of a Koa context (s3rver is a Koa app) the middleware uses. */
interface Ctx {
  method: string;
  path: string;
  get(field: string): string;
  set(field: string, value: string): void;
  remove(field: string): void;
  response: { get(field: string): string };
  /** s3rver's store: a bucket's subresources, its CORS configuration among them. */
  store: { getSubresource(bucket: string, key: undefined, type: 'cors'): Promise<StoredCors | null | undefined> };
}

/**
 * The CDN's response headers policy, for s3rver: a GET or HEAD of an object
 * under a bucket's served prefix (shared/buckets.ts `serve`, path-style
 * URLs, as the local photo URLs are) answers with the same headers as
 * CloudFront in AWS (`X-Content-Type-Options: nosniff` and the CSP).
 */
export function servedHeaders() {
  const served = Object.values(BUCKETS).flatMap((b) => (b.serve ? [{ path: `/${b.name}/${b.serve.prefix}`, headers: b.serve.headers }] : []));
  return (ctx: Ctx, next: () => Promise<unknown>) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD') {
      const route = served.find((s) => ctx.path.startsWith(s.path));
      for (const [field, value] of Object.entries(route?.headers ?? {})) ctx.set(field, value);
    }
    return next();
  };
}

/** The headers of a CORS answer (S3's common response headers: https://docs.aws.amazon.com/AmazonS3/latest/API/RESTCommonResponseHeaders.html). */
const CORS_ANSWER = [
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-max-age',
  'vary',
];

/**
 * s3rver applies a bucket's CORS rules (PutBucketCors) as S3 does where it decides a browser's verdict: a preflight
 * is refused (403 CORSResponse) when the bucket has no rule or none matches its origin, method and headers, and a
 * request of a matching origin gets Access-Control-Allow-Origin. It is looser than S3 in what it adds: a rule of
 * origin `*` also matches a request with no Origin at all, so every GET (the functions' own) carries CORS headers,
 * which a browser's cache could reuse for a cross-origin read S3 would refuse; S3 evaluates CORS only for a request
 * that has an Origin. And it says Access-Control-Allow-Credentials: true beside Allow-Origin *, which S3 omits.
 * This outermost middleware takes both back, on errors too (s3rver keeps the CORS headers of an error answer).
 * It also puts the rule's MaxAgeSeconds on the preflight it allowed, where S3 says it (Appendix: OPTIONS object) and
 * a browser reads it: s3rver says it on the other answers only, so a browser would preflight every upload again.
 */
export function corsAsS3() {
  return async (ctx: Ctx, next: () => Promise<unknown>) => {
    try {
      await next();
    } finally {
      if (!ctx.get('origin')) for (const field of CORS_ANSWER) ctx.remove(field);
      else if (ctx.response.get('access-control-allow-origin') === '*') ctx.remove('access-control-allow-credentials');
      if (ctx.method === 'OPTIONS' && ctx.response.get('access-control-allow-origin')) await preflightMaxAge(ctx);
    }
  };
}

/** The max age of the rule that allowed a preflight, from the bucket's stored configuration (the rule s3rver matched). */
async function preflightMaxAge(ctx: Ctx) {
  const bucket = ctx.path.split('/')[1];
  const config = bucket ? await ctx.store.getSubresource(bucket, undefined, 'cors') : undefined;
  const maxAge = config?.matchRule(ctx.get('origin'), ctx.get('access-control-request-method'))?.maxAgeSeconds;
  if (maxAge !== undefined) ctx.set('access-control-max-age', String(maxAge));
}

/** The longest suffix s3rver appends to a key's last segment to name its files (`<segment>._S3rver_metadata.json`). */
const STORE_SUFFIX_BYTES = '._S3rver_metadata.json'.length;
/** A file name's limit on Linux and macOS: a key segment longer than this less the suffix cannot be stored. */
const NAME_MAX_BYTES = 255;

/**
 * What S3 refuses in a request's path, before s3rver reads it (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html):
 * a target that is no URI or does not decode (InvalidURI), a bucket name over 63 characters (InvalidBucketName, the
 * naming rules' limit), a key over 1 024 bytes (KeyTooLongError). s3rver answered each with a 500 (Node's URL
 * parser, a NUL byte or a name too long for its filesystem). And what s3rver cannot hold where S3 can: it keeps an
 * object as files named by its key under the bucket's folder, so a key with a `.` or `..` segment would name a file
 * elsewhere (`..%2f..%2fx` wrote outside the state directory), and a segment over 233 bytes is no file name: both are
 * refused locally (docs/operations/local-stack.md), never by S3. Outermost: nothing before it may parse the path.
 */
export function pathsAsS3() {
  return (ctx: { req: { url?: string } }, next: () => Promise<unknown>) => {
    // As s3rver reads it: the path as sent (origin form: the SDK's), decoded, never normalized.
    const raw = ctx.req.url ?? '/';
    const path = raw.startsWith('/') ? percentDecoded(raw.split('?')[0]!) : null;
    if (path === null || path.includes('\0')) throw new S3Error('InvalidURI', "Couldn't parse the specified URI.");
    const [bucket, ...key] = path.slice(1).split('/');
    if (bucket && bucket.length > 63) throw new S3Error('InvalidBucketName', 'The specified bucket is not valid.', { BucketName: bucket.slice(0, 63) });
    if (Buffer.byteLength(key.join('/')) > 1024) throw new S3Error('KeyTooLongError', 'Your key is too long');
    if (key.some((s) => s === '.' || s === '..'))
      throw new S3Error('InvalidArgument', "The local S3 keeps objects as files: a key with a '.' or '..' segment is refused here (S3 itself takes it).");
    if (key.some((s) => Buffer.byteLength(s) > NAME_MAX_BYTES - STORE_SUFFIX_BYTES))
      throw new S3Error(
        'KeyTooLongError',
        `The local S3 keeps objects as files: each segment of a key is at most ${NAME_MAX_BYTES - STORE_SUFFIX_BYTES} bytes here (S3 takes up to 1024).`,
      );
    return next();
  };
}
