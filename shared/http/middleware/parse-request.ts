import type { MiddlewareObj } from '@middy/core';
import { visit } from 'jsonc-parser';
import * as z from 'zod';
import { withClockLead } from '../../kernel/clock';
import { service } from '../../kernel/config';
import { ApiError } from '../../kernel/errors';
import { depthExceededAt, MAX_JSON_DEPTH } from '../../kernel/json-depth';
import { type RouteContext, stateOf } from '../context';
import type { RouteDef } from '../route-def';
import type { ApiEvent, ApiResult } from '../types';
import { parseWith } from '../validation';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as JSON text: UTF-8 exactly as sent (no byte order mark, no replaced bytes), or a 400 that says why not. */
function bodyText(bytes: Buffer): string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError('request.body.invalid_utf8', 'The request body is not valid UTF-8: send the JSON document encoded in UTF-8.');
  }
  if (text.startsWith('\uFEFF')) {
    throw new ApiError('request.body.malformed_json', 'The request body starts with a byte order mark (U+FEFF): send the JSON document without it.', {
      position: 0,
    });
  }
  return text;
}

/**
 * A body nested deeper than MAX_JSON_DEPTH is refused as early as one too large, before anything reads it
 * (issue 40: the duplicate-key visitor and the request log's redaction ran out of stack on it, answering 500).
 */
function refuseDeepNesting(bytes: Uint8Array): void {
  const position = depthExceededAt(bytes);
  if (position === -1) return;
  throw new ApiError(
    'request.body.too_deep',
    `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep (level ${MAX_JSON_DEPTH + 1} opens at byte ${position}); no operation takes more than a few levels.`,
    { max_depth: MAX_JSON_DEPTH, position },
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
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

/**
 * A key twice in one object is refused: JSON.parse keeps the last, while a
 * bank's WAF or validator may read the first (`{"role":"VIEWER","role":"PARTNER_ADMIN"}`).
 * Run on text JSON.parse accepted, so only the duplicate check is left to do.
 */
function refuseDuplicateKeys(text: string): void {
  const objects: Set<string>[] = [];
  let duplicate: { key: string; offset: number; path: string } | undefined;
  visit(text, {
    onObjectBegin: () => {
      objects.push(new Set());
    },
    onObjectEnd: () => {
      objects.pop();
    },
    onObjectProperty: (key, offset, _length, _line, _column, pathSupplier) => {
      const seen = objects.at(-1)!;
      if (seen.has(key) && !duplicate) duplicate = { key, offset, path: [...pathSupplier(), key].join('.') };
      seen.add(key);
    },
  });
  if (duplicate) {
    throw new ApiError('request.body.duplicate_key', `The request body has the key '${duplicate.path}' twice in one object: send each key once.`, {
      field: duplicate.path,
      position: duplicate.offset,
    });
  }
}

/** Query parameters the route does not declare are refused, as unknown body fields are: a typo never silently lists everything. */
function refuseUnknownParameters(def: RouteDef, given: Record<string, string | undefined>) {
  const schema = def.request?.query;
  const known = schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
  const unknown = Object.keys(given).filter((k) => !known.includes(k));
  if (unknown.length === 0) return;
  const expected = known.length ? `one of ${known.join(', ')}` : 'no query parameters';
  throw new ApiError(
    'validation.parameter.unknown',
    `Unknown query parameter '${unknown[0]}'${known.length ? `; this operation takes ${known.join(', ')}` : '; this operation takes none'}.`,
    { errors: unknown.map((field) => ({ field, location: 'query', message: 'unknown parameter', expected })) },
  );
}

/**
 * Parses and validates a request: the body's size (413) and nesting depth, unknown query parameters,
 * path, query, then the body: UTF-8, JSON (400 when not), duplicate keys, and the route's zod
 * schema. A route whose body fields are all optional takes an empty body as {}.
 */
export function parseRequest(def: RouteDef): MiddlewareObj<ApiEvent, ApiResult, Error, RouteContext> {
  return {
    before: async (request) => {
      const event = request.event;
      const state = stateOf(request.context);
      const maxBytes = service().MAX_BODY_BYTES;
      if (state.bodyBytes.length > maxBytes) {
        throw new ApiError('request.body.too_large', `The request body exceeds the maximum of ${maxBytes} bytes.`, { max_bytes: maxBytes });
      }
      const schemas = def.request ?? {};
      if (schemas.body) refuseDeepNesting(state.bodyBytes);
      if (!def.ignoresQuery) refuseUnknownParameters(def, event.queryStringParameters ?? {});
      // Bounds of dates are judged on the caller's clock (a sandbox's may be ahead of real time).
      state.input = withClockLead(state.principal?.clockOffsetMs ?? 0, () => {
        const params = schemas.params ? parseWith(schemas.params, event.pathParameters ?? {}, 'path') : {};
        const query = schemas.query ? parseWith(schemas.query, event.queryStringParameters ?? {}, 'query') : {};
        let body: unknown;
        if (schemas.body) {
          const text = bodyText(state.bodyBytes);
          let json: unknown;
          if (text.trim().length > 0) {
            json = parseJson(text);
            refuseDuplicateKeys(text);
          } else if (schemas.body.safeParse({}).success) json = {};
          body = parseWith(schemas.body, json, 'body');
        }
        return { params, query, body };
      });
    },
  };
}
