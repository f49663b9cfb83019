import type { MiddlewareObj } from '@middy/core';
import { ApiError } from '../../errors';
import { service } from '../../config';
import type { RouteDef } from '../../routes';
import { getState } from '../context';
import { parseWith } from '../validation';
import type { ApiEvent, ApiResult, LambdaContext } from '../types';

export interface ParsedInput {
  params: unknown;
  query: unknown;
  body: unknown;
}

/** Parses JSON (400 on malformed, 413 on oversized) and validates path, query and body with the route's zod schemas. */
export function parseRequest(def: RouteDef): MiddlewareObj<ApiEvent, ApiResult, Error, LambdaContext> {
  return {
    before: async (request) => {
      const event = request.event;
      const state = getState(event);
      const maxBytes = service().MAX_BODY_BYTES;
      if (Buffer.byteLength(state.rawBody, 'utf8') > maxBytes) {
        throw new ApiError('request.body.too_large', `The request body exceeds the maximum of ${maxBytes} bytes.`, { max_bytes: maxBytes });
      }
      const schemas = def.request ?? {};
      const params = schemas.params ? parseWith(schemas.params, event.pathParameters ?? {}, 'path') : {};
      const query = schemas.query ? parseWith(schemas.query, event.queryStringParameters ?? {}, 'query') : {};
      let body: unknown;
      if (schemas.body) {
        let json: unknown;
        if (state.rawBody.trim().length === 0) {
          json = undefined;
        } else {
          try {
            json = JSON.parse(state.rawBody);
          } catch (e) {
            // Only the position: the parser's message quotes the body, which may hold secrets.
            const position = /position (\d+)/.exec(e instanceof Error ? e.message : '')?.[1];
            throw new ApiError('request.body.malformed_json', 'The request body is not valid JSON (write bodies are JSON documents).', position ? { position: Number(position) } : undefined);
          }
        }
        body = parseWith(schemas.body, json, 'body');
      }
      (event as unknown as { parsed: ParsedInput }).parsed = { params, query, body };
    },
  };
}

export function headerValue(event: ApiEvent, name: string): string | undefined {
  const headers = event.headers ?? {};
  const v = headers[name] ?? headers[name.toLowerCase()];
  if (v !== undefined) return v;
  const found = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return found ? headers[found] : undefined;
}
