import type { MiddlewareObj } from '@middy/core';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors';
import { logger } from '../../logger';
import type { RouteDef } from '../../routes';
import { setState, getState, type RequestState } from '../context';
import { errorResult } from '../respond';
import type { ApiEvent, ApiResult, LambdaContext } from '../types';

/**
 * Outermost middleware: assigns the request id (API Gateway's), decodes the
 * raw body, and on the way out turns any error into the spec's error shape and
 * adds the headers every response carries (X-Request-Id, rate limits,
 * deprecation).
 */
export function httpContext(def: RouteDef): MiddlewareObj<ApiEvent, ApiResult, Error, LambdaContext> {
  const finish = (state: RequestState, result: ApiResult): ApiResult => {
    const headers: Record<string, string> = { ...result.headers, ...state.headers, 'x-request-id': state.requestId };
    if (def.deprecated) {
      headers['deprecation'] = `@${Math.floor(Date.parse(def.deprecated.since) / 1000)}`;
      headers['sunset'] = new Date(def.deprecated.sunset).toUTCString();
    }
    logger.info('request', {
      route: `${def.method} ${def.path}`,
      status: result.statusCode,
      duration_ms: Date.now() - state.startedAt,
      ...(state.principal ? { key_id: state.principal.keyId, env: state.principal.env } : {}),
    });
    return { ...result, headers };
  };

  return {
    before: async (request) => {
      const event = request.event;
      const requestId = event.requestContext?.requestId || randomUUID();
      logger.resetKeys();
      logger.appendKeys({ request_id: requestId });
      const raw = event.body ?? '';
      const rawBody = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
      setState(event, { requestId, route: def, startedAt: Date.now(), headers: {}, rawBody });
    },
    after: async (request) => {
      request.response = finish(getState(request.event), request.response!);
    },
    onError: async (request) => {
      let state: RequestState;
      try {
        state = getState(request.event);
      } catch {
        state = { requestId: request.event.requestContext?.requestId || randomUUID(), route: def, startedAt: Date.now(), headers: {}, rawBody: '' };
      }
      const err = request.error;
      let apiError: ApiError;
      if (err instanceof ApiError) {
        apiError = err;
      } else {
        // Unknown failures are logged with the request id and never echoed.
        logger.error('unhandled error', { error: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err) });
        apiError = new ApiError('internal.error', 'An internal error occurred. Retry later and quote the request id if it persists.');
      }
      request.response = finish(state, errorResult(apiError, state.requestId));
    },
  };
}
