import { randomUUID } from 'node:crypto';
import { authenticateRequest } from '../../shared/http/authenticate-request';
import { headerValue } from '../../shared/http/headers';
import { errorResult, toApiError } from '../../shared/http/respond';
import { matchRoute } from '../../shared/http/router';
import type { ApiEvent, ApiResult } from '../../shared/http/types';
import { ApiError } from '../../shared/kernel/errors';

/**
 * API Gateway's $default route: answers, in the spec's error shape, what no
 * route of the table matches (404) or matches with another method (405). A
 * request that carries a key is counted like any other, so its answer has
 * the rate-limit headers (and a bad key gets its 401).
 */
export const handler = async (event: ApiEvent): Promise<ApiResult> => {
  const requestId = event.requestContext?.requestId || randomUUID();
  const method = event.requestContext.http.method.toUpperCase();
  const path = event.rawPath;
  const headers: Record<string, string> = {};
  let error: ApiError;
  try {
    if (headerValue(event, 'authorization') !== undefined) await authenticateRequest(event, headers);
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
      error = new ApiError('request.route.not_found', `No route matches ${method} ${path}.`);
    }
  } catch (e) {
    error = toApiError(e);
  }
  const result = errorResult(error, requestId);
  return { ...result, headers: { ...result.headers, ...headers, 'x-request-id': requestId } };
};
