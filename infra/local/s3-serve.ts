import { BUCKETS } from '../../shared/buckets';

/** The slice of a Koa context (s3rver is a Koa app) the middleware uses. */
interface Ctx {
  method: string;
  path: string;
  set(field: string, value: string): void;
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
