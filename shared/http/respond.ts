import { ApiError } from '../errors';
import type { ApiResult, HandlerResult } from './types';

export function jsonResult(status: number, body: unknown, headers: Record<string, string> = {}): ApiResult {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: body === undefined ? '' : JSON.stringify(body),
  };
}

export function toResult(r: HandlerResult): ApiResult {
  if (r.raw) {
    return {
      statusCode: r.status ?? 200,
      headers: { 'content-type': r.raw.contentType, ...r.headers },
      body: r.raw.body,
      isBase64Encoded: r.raw.isBase64 ?? false,
    };
  }
  if (r.status === 204) return { statusCode: 204, headers: { ...r.headers }, body: '' };
  return jsonResult(r.status ?? 200, r.body, r.headers);
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
