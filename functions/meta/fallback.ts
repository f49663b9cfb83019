import { randomUUID } from 'node:crypto';
import { errorResult } from '../../shared/http/respond';
import { matchRoute } from '../../shared/http/router';
import type { ApiEvent, ApiResult } from '../../shared/http/types';
import { ApiError } from '../../shared/kernel/errors';

/**
 * API Gateway's $default route: answers, in the spec's error shape, what no
 * route of the table matches (404) or matches with another method (405).
 */
export const handler = async (event: ApiEvent): Promise<ApiResult> => {
  const requestId = event.requestContext?.requestId || randomUUID();
  const method = event.requestContext.http.method.toUpperCase();
  const path = event.rawPath;
  const match = matchRoute(method, path);
  let result: ApiResult;
  if (match.kind === 'method_not_allowed') {
    const allow = match.allowed.join(', ');
    result = errorResult(
      new ApiError(
        'request.method.not_allowed',
        `Method ${method} is not allowed on ${path}; allowed: ${allow}.`,
        { allowed_methods: match.allowed },
        { allow },
      ),
      requestId,
    );
  } else {
    result = errorResult(new ApiError('request.route.not_found', `No route matches ${method} ${path}.`), requestId);
  }
  return { ...result, headers: { ...result.headers, 'x-request-id': requestId } };
};
