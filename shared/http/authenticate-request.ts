import { ApiError } from '../kernel/errors';
import { logger } from '../kernel/logger';
import { countFailedAuthentication } from '../platform/auth-failures';
import { type Alongside, type Authenticated, authenticate } from '../platform/authenticate';
import { type RateLimitState, rateHeaders } from '../platform/rate-limit';
import { headerValue } from './headers';
import type { ApiEvent } from './types';

const rateLimited = (rate: RateLimitState, message: string) =>
  new ApiError('rate_limit.exceeded', message, { limit: rate.limit, reset: rate.reset }, { ...rateHeaders(rate), 'retry-after': String(rate.retryAfter) });

/** The key id a bearer token names, even when the rest of it is wrong. */
const keyIdIn = (authorization: string | undefined) => /\bsk_(?:live|test)_([a-z0-9]{12})_/.exec(authorization ?? '')?.[1];

/**
 * Authenticates the bearer key and counts the request against its limit.
 * Every answer carries the X-RateLimit-* headers of what was counted: the
 * key's limit, or for a failed authentication the failed-authentication
 * budget of the key id (20 a minute) and source address (100), beyond which the
 * answer is 429 instead of 401. `headers` receives them on success and failure.
 */
export async function authenticateRequest(
  event: ApiEvent,
  headers: Record<string, string>,
  nowMs = Date.now(),
  /** `alongside`: what a write starts in the authentication's own stage (shared/http/early-claim.ts). */
  opts: { clock?: boolean; alongside?: Alongside } = {},
): Promise<Authenticated> {
  const authorization = headerValue(event, 'authorization');
  let auth: Authenticated;
  try {
    auth = await authenticate(authorization, nowMs, headerValue(event, 'x-environment'), opts.clock ?? true, opts.alongside);
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 401) throw e;
    const keyId = keyIdIn(authorization);
    // Counting is protection, not the answer: if it fails, the caller still gets its 401.
    const failures = await countFailedAuthentication(keyId, event.requestContext.http.sourceIp, nowMs).catch((countError: unknown) => {
      logger.error('failed authentication not counted', { error: countError instanceof Error ? countError.message : String(countError) });
      return undefined;
    });
    if (!failures) throw e;
    Object.assign(headers, rateHeaders(failures));
    if (!failures.exceeded) throw e;
    logger.warn('failed authentications throttled', { key_id: keyId ?? null, source_ip: event.requestContext.http.sourceIp, code: e.code });
    throw rateLimited(
      failures,
      `Too many failed authentications for this key or address (at most ${failures.limit} a minute); retry after ${failures.retryAfter} s.`,
    );
  }
  Object.assign(headers, rateHeaders(auth.rate));
  if (auth.rate.exceeded) {
    throw rateLimited(auth.rate, `Rate limit of ${auth.rate.limit} requests per minute exceeded for this key; retry after ${auth.rate.retryAfter} s.`);
  }
  return auth;
}
