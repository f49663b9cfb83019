import type { MiddlewareObj } from '@middy/core';
import { ApiError } from '../../kernel/errors';
import { authenticate } from '../../platform/authenticate';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../../platform/idempotency';
import { checkTimestamp, sign, signatureMatches } from '../../platform/signature';
import type { RouteContext } from '../context';
import { stateOf } from '../context';
import { headerValue, pathWithQuery } from '../headers';
import type { RouteDef } from '../route-def';
import type { ApiEvent, ApiResult } from '../types';

/**
 * The rules every keyed route shares, in order: API key, rate limit (headers
 * on every keyed response), sandbox-only routes (404 to live keys), scope,
 * request signature for live writes, and the Idempotency-Key header of writes.
 */
export function platform(def: RouteDef): MiddlewareObj<ApiEvent, ApiResult, Error, RouteContext> {
  return {
    before: async (request) => {
      if (def.access === 'public') return;
      const event = request.event;
      const state = stateOf(request.context);
      const now = Date.now();
      const { principal, rate, secret } = await authenticate(headerValue(event, 'authorization'), now);
      state.principal = principal;
      state.headers['x-ratelimit-limit'] = String(rate.limit);
      state.headers['x-ratelimit-remaining'] = String(rate.remaining);
      state.headers['x-ratelimit-reset'] = String(rate.reset);
      // Test helpers exist only in the sandbox: to a live key they are a path that does not exist.
      if (def.sandboxOnly && principal.env !== 'test') {
        throw new ApiError('request.route.not_found', `No route matches ${def.method} ${event.rawPath}: test helpers answer sandbox keys (sk_test_) only.`);
      }
      if (rate.exceeded) {
        throw new ApiError(
          'rate_limit.exceeded',
          `Rate limit of ${rate.limit} requests per minute exceeded for this key; retry after ${rate.retryAfter} s.`,
          { limit: rate.limit, reset: rate.reset },
          { 'retry-after': String(rate.retryAfter) },
        );
      }
      if (def.scope && !principal.scopes.has(def.scope)) {
        throw new ApiError('auth.scope.insufficient', `This operation needs the scope '${def.scope}', which role ${principal.role} does not have.`, {
          required_scope: def.scope,
          role: principal.role,
        });
      }
      if (def.write && principal.env === 'live') {
        const ts = headerValue(event, 'x-timestamp');
        const t = checkTimestamp(ts, Math.floor(now / 1000));
        if (!t.ok) throw new ApiError('auth.timestamp.skew', t.reason);
        const expected = sign(secret, ts!, event.requestContext.http.method, pathWithQuery(event), state.rawBody);
        if (!signatureMatches(expected, headerValue(event, 'x-signature'))) {
          throw new ApiError(
            'auth.signature.invalid',
            'X-Signature does not match: expected 64 lowercase hex characters of HMAC-SHA256(secret, timestamp LF METHOD LF path?query LF body).',
          );
        }
      }
      if (def.write) {
        const key = headerValue(event, 'idempotency-key');
        if (key === undefined)
          throw new ApiError('idempotency.key.missing', 'Writes need an Idempotency-Key header (a UUID v4 per logical operation is recommended).');
        if (key.trim() === '' || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
          throw new ApiError('idempotency.key.invalid', `Idempotency-Key must be a non-blank string of at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`, {
            length: key.length,
          });
        }
        state.idempotencyKey = key;
      }
    },
  };
}
