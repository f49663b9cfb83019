import { randomUUID } from 'node:crypto';
import { authenticateRequest } from '../../shared/http/authenticate-request';
import { headerValue } from '../../shared/http/headers';
import { errorResult, toApiError } from '../../shared/http/respond';
import { matchRoute } from '../../shared/http/router';
import type { ApiEvent, ApiResult } from '../../shared/http/types';
import { ApiError } from '../../shared/kernel/errors';
import { instrumented } from '../../shared/kernel/instrument';
import { logger } from '../../shared/kernel/logger';
import { recordRequest } from '../../shared/kernel/metrics';

/** The path without its trailing slashes, when that path is a route of the table for `method`. */
function withoutTrailingSlash(method: string, path: string): string | undefined {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed !== path && trimmed !== '' && matchRoute(method, trimmed).kind === 'route' ? trimmed : undefined;
}

/**
 * API Gateway's $default route: answers, in the spec's error shape, what no
 * route of the table matches (404) or matches with another method (405). A
 * read of a route's path with a trailing slash is redirected (308) to the
 * route; a write is not (its signature covers the path), its 404 names the path. A
 * request that carries a key is counted like any other, so its answer has
 * the rate-limit headers (and a bad key gets its 401). Counted and logged as
 * the route `$default`.
 */
export const handler = instrumented('$default', async (event: ApiEvent): Promise<ApiResult> => {
  const started = Date.now();
  const requestId = event.requestContext?.requestId || randomUUID();
  logger.appendKeys({ request_id: requestId });
  const method = event.requestContext.http.method.toUpperCase();
  const path = event.rawPath;
  const headers: Record<string, string> = {};
  let error: ApiError;
  try {
    if (headerValue(event, 'authorization') !== undefined) await authenticateRequest(event, headers, undefined, { clock: false });
    const match = matchRoute(method, path);
    if (match.kind === 'method_not_allowed') {
      const allow = match.allowed.join(', ');
      error = new ApiError(
        'request.method.not_allowed',
        `Method ${method} is not allowed on ${path}; allowed: ${allow}.`,
        { allowed_methods: match.allowed },
        { allow },
      );
    } else {
      const canonical = withoutTrailingSlash(method, path);
      if (canonical && (method === 'GET' || method === 'HEAD')) {
        const location = canonical + (event.rawQueryString ? `?${event.rawQueryString}` : '');
        recordRequest('$default', 308, Date.now() - started, requestId);
        return { statusCode: 308, headers: { ...headers, location, 'x-request-id': requestId }, body: '' };
      }
      error = new ApiError(
        'request.route.not_found',
        canonical
          ? `No route matches ${method} ${path}; the route is ${canonical}, without the trailing slash (sign the request for that path).`
          : `No route matches ${method} ${path}.`,
      );
    }
  } catch (e) {
    error = toApiError(e);
  }
  const result = errorResult(error, requestId);
  logger.info('request', { status: result.statusCode, duration_ms: Date.now() - started });
  recordRequest('$default', result.statusCode ?? 404, Date.now() - started, requestId);
  return { ...result, headers: { ...result.headers, ...headers, 'x-request-id': requestId } };
});
