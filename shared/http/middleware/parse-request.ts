import type { MiddlewareObj } from '@middy/core';
import { service } from '../../kernel/config';
import { ApiError } from '../../kernel/errors';
import type { RouteContext } from '../context';
import { stateOf } from '../context';
import type { RouteDef } from '../route-def';
import type { ApiEvent, ApiResult } from '../types';
import { parseWith } from '../validation';

/** Parses JSON (400 on malformed, 413 on oversized) and validates path, query and body with the route's zod schemas. */
export function parseRequest(def: RouteDef): MiddlewareObj<ApiEvent, ApiResult, Error, RouteContext> {
  return {
    before: async (request) => {
      const event = request.event;
      const state = stateOf(request.context);
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
            throw new ApiError(
              'request.body.malformed_json',
              'The request body is not valid JSON (write bodies are JSON documents).',
              position ? { position: Number(position) } : undefined,
            );
          }
        }
        body = parseWith(schemas.body, json, 'body');
      }
      state.input = { params, query, body };
    },
  };
}
