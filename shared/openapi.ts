import * as z from 'zod';
import { ROLE_SCOPES } from './access/roles';
import { webhooksSection } from './events/openapi';
import type { RouteDef } from './http/route-def';
import { ErrorFields, queryForm } from './http/schemas';
import { ERROR_CODES, type ErrorCode } from './kernel/errors';
import { sampleOf } from './openapi-examples';
import { ROUTE_LIST } from './routes';

type Json = Record<string, unknown>;

/** The error codes an operation can answer, by status: the platform's for its kind of route, then its own. */
export function errorCodesOf(r: RouteDef): Record<string, ErrorCode[]> {
  const out: Record<string, ErrorCode[]> = {};
  const add = (...codes: ErrorCode[]) => {
    for (const c of codes) {
      const status = String(ERROR_CODES[c].status);
      out[status] ??= [];
      if (!out[status].includes(c)) out[status].push(c);
    }
  };
  if (!r.ignoresQuery) add('validation.parameter.unknown');
  if (r.request?.query || r.request?.params || r.request?.body) add('validation.required.field', 'validation.field.invalid');
  if (r.request?.query?.shape && 'cursor' in r.request.query.shape)
    add('pagination.limit.invalid', 'pagination.cursor.invalid', 'pagination.cursor.wrong_endpoint');
  if (r.access === 'key') add('auth.api_key.missing', 'auth.api_key.invalid', 'auth.scope.insufficient', 'rate_limit.exceeded');
  if (r.write) {
    add('request.body.malformed_json', 'request.body.invalid_utf8', 'request.body.duplicate_key', 'request.body.too_deep');
    add('idempotency.key.missing', 'idempotency.key.invalid');
    add('auth.timestamp.missing', 'auth.timestamp.skew', 'auth.signature.invalid', 'auth.signature.replayed');
    add('idempotency.key.reused', 'idempotency.request.in_progress', 'request.body.too_large');
  }
  if (r.liveOnly || r.liveKeysOnly) add('auth.environment.live_required');
  if (r.sandboxOnly) add('request.route.not_found');
  if (r.request?.params) add('resource.not_found');
  add(...(r.errors ?? []), 'internal.error');
  return out;
}

const TAGS: Record<string, string> = {
  Meta: 'Metadata for the current key, service health, the audit trail and this document.',
  Catalog: 'Browse adventures and their availability.',
  Quotes: 'Price-locked quotes with a 30 minute time to live.',
  Bookings: 'Create, retrieve and cancel bookings.',
  Settlements: 'Monthly payout invoices from the service to the partner.',
  Webhooks: 'Endpoints that receive signed events, and their deliveries.',
  Events: 'Every event recorded for you, as webhooks carry it: the source of truth to resync after missed deliveries.',
  Team: 'Members of the partner console, their roles, and API keys.',
  Reviews: 'Traveler reviews.',
  Files: 'Presigned uploads.',
  'Test helpers':
    'Sandbox only (sk_test_ keys; a live key gets 404): trigger at once what would otherwise take a month, an operator or the travel date. Idempotent like every write.',
};

/** The reference page's navigation (Redoc's x-tagGroups), in a partner's order of work; a tag in no group would be hidden. */
const TAG_GROUPS: { name: string; tags: string[] }[] = [
  { name: 'Start here', tags: ['Meta'] },
  { name: 'Book', tags: ['Catalog', 'Quotes', 'Bookings'] },
  { name: 'After the booking', tags: ['Settlements', 'Reviews', 'Files'] },
  { name: 'Notifications', tags: ['Webhooks', 'Events', 'Webhook events'] },
  { name: 'Team and keys', tags: ['Team'] },
  { name: 'Sandbox', tags: ['Test helpers'] },
];

/** A write's alternatives: a live one signed as version 2 (recommended) or version 1, a sandbox one with the key alone. */
export const WRITE_SECURITY = [
  { ApiKey: [], LiveTimestamp: [], LiveSignature: [], LiveSignatureVersion: [] },
  { ApiKey: [], LiveTimestamp: [], LiveSignature: [] },
  { ApiKey: [] },
];

const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

/**
 * The OpenAPI 3.1 document, generated from the route table and its zod
 * schemas: every route, its scope, parameters, bodies, responses, the error
 * shape and the headers the platform adds.
 */
export function buildOpenApi(routes: RouteDef[] = ROUTE_LIST): Json {
  const schemas: Record<string, unknown> = {};
  const convert = (schema: z.ZodType): Json => {
    const raw = z.toJSONSchema(schema, {
      io: 'input',
      unrepresentable: 'any',
      target: 'draft-2020-12',
      // A query field parsed from text is documented as what it stands for (shared/http/schemas.ts, documentedAs).
      override: (ctx) => {
        const json = ctx.jsonSchema as Json;
        // The data classes are the request log's (shared/http/data-class.ts), not part of the interface.
        delete json.dataClass;
        delete json.publicForm;
        // zod bounds every integer by the safe integers: true of any JSON number, and noise in a generated client.
        if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
        if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
        const form = queryForm.get(ctx.zodSchema);
        if (!form) return;
        for (const k of Object.keys(json)) if (k !== 'description') delete json[k];
        Object.assign(json, form);
      },
    }) as Json;
    const fixed = JSON.parse(JSON.stringify(raw).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
    const { $schema: _s, $defs, ...rest } = fixed;
    Object.assign(schemas, ($defs as Json) ?? {});
    return rest;
  };
  // JSON bodies carry an example: the route's own, else one derived from the schema.
  const media = (schema: z.ZodType, contentType: string | undefined, given: unknown): Json => {
    const converted = convert(schema);
    if (contentType && !contentType.startsWith('application/json')) return { schema: converted };
    return { schema: converted, example: given ?? sampleOf(converted, schemas) };
  };
  // An error response's schema is ErrorFields plus its own code enum (ErrorFields says why).
  const errorFieldsRef = { $ref: `#/components/schemas/${(convert(ErrorFields).$ref as string).split('/').pop()}` };

  const paths: Record<string, Record<string, Json>> = {};
  for (const r of routes) {
    const rel = r.path.replace(/^\/v1/, '');
    const params: Json[] = [];
    for (const [loc, schema] of [
      ['path', r.request?.params],
      ['query', r.request?.query],
    ] as const) {
      if (!schema) continue;
      const js = convert(schema) as { properties?: Record<string, Json>; required?: string[] };
      for (const [name, s] of Object.entries(js.properties ?? {})) {
        const { description, ...sch } = s;
        params.push({ name, in: loc, required: loc === 'path' || (js.required ?? []).includes(name), ...(description ? { description } : {}), schema: sch });
      }
    }
    if (r.write)
      params.push(
        { $ref: '#/components/parameters/IdempotencyKey' },
        { $ref: '#/components/parameters/XTimestamp' },
        { $ref: '#/components/parameters/XSignature' },
        { $ref: '#/components/parameters/XSignatureVersion' },
      );

    const commonHeaders: Json = { 'X-Request-Id': { $ref: '#/components/headers/XRequestId' } };
    if (r.access === 'key') {
      commonHeaders['X-RateLimit-Limit'] = { $ref: '#/components/headers/XRateLimitLimit' };
      commonHeaders['X-RateLimit-Remaining'] = { $ref: '#/components/headers/XRateLimitRemaining' };
      commonHeaders['X-RateLimit-Reset'] = { $ref: '#/components/headers/XRateLimitReset' };
    }
    if (r.deprecated) {
      commonHeaders.Deprecation = { $ref: '#/components/headers/Deprecation' };
      commonHeaders.Sunset = { $ref: '#/components/headers/Sunset' };
    }
    const responses: Record<string, Json> = {};
    for (const [status, res] of Object.entries(r.responses)) {
      const headers = {
        ...commonHeaders,
        ...(r.write ? { 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } } : {}),
        ...(status.startsWith('3') ? { Location: header('Where the resource is (a short-lived presigned URL).', { type: 'string', format: 'uri' }) } : {}),
        ...Object.fromEntries(Object.entries(res.headers ?? {}).map(([name, description]) => [name, header(description)])),
      };
      responses[status] = {
        description: res.description,
        headers,
        ...(res.schema ? { content: { [res.contentType ?? 'application/json']: media(res.schema, res.contentType, r.examples?.response) } } : {}),
      };
    }
    // Every error response lists the codes it can carry: the platform's for the route's kind, then the route's own.
    const codes = errorCodesOf(r);
    const error = (status: string, description: string, extra: Json = {}) => {
      const list = codes[status] ?? [];
      return {
        description: `${description}\n\nCodes: ${list.map((c) => `\`${c}\``).join(', ')}.`,
        headers: { ...commonHeaders, ...extra },
        'x-error-codes': list,
        content: {
          'application/json': {
            // The Error shape, its code narrowed to this response's codes, so that a generated client can switch on it.
            schema: {
              allOf: [
                errorFieldsRef,
                {
                  type: 'object',
                  required: ['code'],
                  properties: { code: { type: 'string', description: 'Stable code of the form domain.subdomain.detail', enum: list } },
                },
              ],
            },
            example: { code: list[0], message: ERROR_CODES[list[0]!].description, request_id: '6b0f3a52-1d4e-4c55-8a2b-0c9d8e7f6a15' },
          },
        },
      };
    };
    const describe: Record<string, [string, Json?]> = {
      '400': ['Invalid request: validation (the field and what was expected are in details), malformed JSON, pagination or Idempotency-Key.'],
      '401': ['Missing or invalid key; for live writes, bad timestamp or signature.'],
      '403': ["The key's member lacks the required scope, or the operation is refused for this caller."],
      '404': [
        r.sandboxOnly
          ? 'A live key: test helpers exist in the sandbox only. Or no such resource in your sandbox.'
          : 'No such resource for this partner and environment.',
      ],
      '409': ['Idempotency-Key reused with another request or still in progress, or a conflict of the operation.'],
      '413': ['Body too large.'],
      '422': ['The operation is refused by a rule of the domain (details say which).'],
      '429': ['Rate limit exceeded.', { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } }],
      '500': ['Internal error; quote the request id.'],
    };
    for (const status of Object.keys(codes).sort()) {
      const [description, extra] = describe[status] ?? ['Error.'];
      responses[status] = error(status, description, extra);
    }

    const op: Json = {
      operationId: r.id,
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: [r.tag],
      // Live writes are signed (X-Timestamp, X-Signature, version 2 announced); sandbox writes and reads carry the key alone.
      security: r.access === 'public' ? [] : r.write ? WRITE_SECURITY : [{ ApiKey: [] }],
      ...(r.scope ? { 'x-required-scope': r.scope } : {}),
      ...(params.length ? { parameters: params } : {}),
      // The service takes an empty body as {} where the schema accepts {} (shared/http/middleware/parse-request.ts): such a body is optional.
      ...(r.request?.body
        ? {
            requestBody: {
              required: !r.request.body.safeParse({}).success,
              content: { 'application/json': media(r.request.body, undefined, r.examples?.request) },
            },
          }
        : {}),
      responses,
      ...(r.deprecated ? { deprecated: true, 'x-sunset': r.deprecated.sunset } : {}),
      ...(r.sandboxOnly ? { 'x-sandbox-only': true } : {}),
    };
    paths[rel] = { ...paths[rel], [r.method.toLowerCase()]: op };
  }

  const usedTags = [...new Set(routes.map((r) => r.tag))];
  // What partners' endpoints receive: one webhook per event type (OpenAPI 3.1 webhooks).
  const events = webhooksSection(convert);
  const tags = [...usedTags.map((name) => ({ name, description: TAGS[name] ?? name })), events.tag];
  const grouped = new Set(TAG_GROUPS.flatMap((g) => g.tags));
  const ungrouped = tags.map((t) => t.name as string).filter((n) => !grouped.has(n));
  if (ungrouped.length) throw new Error(`tags in no x-tagGroups group (Redoc would hide them): ${ungrouped.join(', ')}`);
  const present = new Set(tags.map((t) => t.name as string));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Partner travel booking service',
      version: '1.0.0',
      description:
        'B2B API through which banking partners browse a travel catalog, take price-locked quotes, book, cancel, read settlements, receive webhooks and manage their team. The environment follows the key: sk_live_ keys act in production, sk_test_ keys in the sandbox.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Partner integrations', email: 'partners@partner-travel.example' },
    },
    servers: [{ url: '/v1', description: 'The host serving this document; base URLs end with /v1.' }],
    security: [{ ApiKey: [] }],
    tags,
    'x-tagGroups': TAG_GROUPS.map((g) => ({ ...g, tags: g.tags.filter((t) => present.has(t)) })).filter((g) => g.tags.length),
    paths,
    webhooks: events.webhooks,
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer sk_live_<prefix>_<secret> or sk_test_<prefix>_<secret>. Live writes also carry X-Timestamp and X-Signature = hex(HMAC-SHA256(secret, timestamp LF METHOD LF path?query LF body)).',
        },
        LiveTimestamp: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Timestamp',
          description:
            'Live writes (POST, PUT, PATCH, DELETE with an sk_live_ key): Unix time in seconds, within 300 s of server time; signed by X-Signature. Absent: 401 auth.timestamp.missing; too far: 401 auth.timestamp.skew. Sandbox keys are exempt.',
        },
        LiveSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Signature',
          description:
            'Live writes: 64 lowercase hex characters of HMAC-SHA256 keyed with the secret of the key (the part after its last _), the body as the exact bytes sent, over the signing string of the version X-Signature-Version announces. Version 2: "v2" LF timestamp LF METHOD LF path?query LF Idempotency-Key LF body. Version 1 (no X-Signature-Version, the spec\'s): timestamp LF METHOD LF path?query LF body, accepted once: the same signature with another Idempotency-Key (a replay, or an identical request of the same second) is 401 auth.signature.replayed. A mismatch is 401 auth.signature.invalid with what the service signed in details. Sandbox keys are exempt.',
        },
        LiveSignatureVersion: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Signature-Version',
          description:
            'Live writes, recommended: 2, the signing version whose X-Signature also covers the Idempotency-Key, so that two requests never share a signature and a replay under another Idempotency-Key fails it. Absent: version 1. Any other value: 401 auth.signature.invalid.',
        },
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          description: 'Unique per logical operation (UUID v4 recommended), at most 255 characters, retained 24 hours.',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
        XTimestamp: {
          name: 'X-Timestamp',
          in: 'header',
          required: false,
          description: 'Live writes only: Unix time in seconds, within 300 s of server time.',
          schema: { type: 'string', pattern: '^[0-9]+$' },
        },
        XSignature: {
          name: 'X-Signature',
          in: 'header',
          required: false,
          description: 'Live writes only: 64 lowercase hex characters of HMAC-SHA256.',
          schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        },
        XSignatureVersion: {
          name: 'X-Signature-Version',
          in: 'header',
          required: false,
          description: 'Live writes only: 2 signs the Idempotency-Key too (recommended); absent, version 1.',
          schema: { type: 'string', enum: ['1', '2'] },
        },
        ...events.parameters,
      },
      headers: {
        XRequestId: header('Unique request id; equals request_id in error bodies.'),
        XRateLimitLimit: header('Requests allowed per minute for this key.', { type: 'integer' }),
        XRateLimitRemaining: header('Requests left in the current window.', { type: 'integer' }),
        XRateLimitReset: header('Unix time (seconds) when the window resets.', { type: 'integer', format: 'int64' }),
        RetryAfter: header('Seconds to wait before retrying.', { type: 'integer' }),
        IdempotentReplayed: header('true when the response is the stored response of an earlier request with the same Idempotency-Key.', {
          type: 'string',
          enum: ['true'],
        }),
        ...(routes.some((r) => r.deprecated)
          ? {
              Deprecation: header('RFC 9745 deprecation date of the route (@unix-seconds).'),
              Sunset: header('RFC 8594 date after which the route is removed.'),
            }
          : {}),
      },
      schemas,
    },
    'x-error-codes': Object.entries(ERROR_CODES).map(([code, v]) => ({ code, status: v.status, description: v.description })),
    'x-role-scopes': ROLE_SCOPES,
  };
}
