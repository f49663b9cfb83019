import { ApiError } from '../kernel/errors';
import { logger } from '../kernel/logger';
import type { ApiResult } from './types';

export function jsonResult(status: number, body: unknown, headers: Record<string, string> = {}): ApiResult {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: body === undefined ? '' : JSON.stringify(body),
  };
}

export function errorBody(err: ApiError, requestId: string) {
  return {
    code: err.code,
    message: err.message,
    request_id: requestId,
    ...(err.details ? { details: err.details } : {}),
  };
}

export function errorResult(err: ApiError, requestId: string): ApiResult {
  return jsonResult(err.status, errorBody(err, requestId), err.headers);
}

/**
 * The one place that decides what an error becomes: a typed ApiError keeps
 * its status and code; anything else is logged with the request id (already on
 * the logger) and answered as a generic 500 that echoes nothing.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  logger.error('unhandled error', { error: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err) });
  return new ApiError('internal.error', 'An internal error occurred. Retry later and quote the request id if it persists.');
}
