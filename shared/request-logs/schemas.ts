import * as z from 'zod';
import { BoundedInstant, singleLine } from '../http/bounds';
import { page, pageQuery, RequestId } from '../http/schemas';
import { ERROR_CODES } from '../kernel/errors';
import { isIdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH } from '../platform/idempotency';
import { MAX_BODY_CHARS } from './redact';

export const RequestLogBody = z
  .object({
    content: z
      .string()
      .nullable()
      .describe(`The body as JSON text, personal data and secrets replaced by "[redacted]", cut at ${MAX_BODY_CHARS} characters; null when it is not kept`),
    bytes: z.number().int().describe('The size of the body as sent, in bytes'),
    truncated: z.boolean().describe(`true when content stops at ${MAX_BODY_CHARS} characters`),
    omitted: z.string().optional().describe('Why nothing of the body is kept: a body that is not JSON cannot be redacted field by field'),
  })
  .meta({ id: 'RequestLogBody' });

export const RequestLogEntry = z
  .object({
    request_id: z.string().describe('X-Request-Id of the answer'),
    occurred_at: z.iso.datetime().describe('When the service received the request'),
    environment: z.enum(['live', 'test']),
    method: z.string(),
    path: z.string().describe('The path as sent, without the query string'),
    query: z.string().nullable().describe('The raw query string, sensitive parameters redacted; null without one'),
    status: z.number().int(),
    error_code: z.string().nullable().describe('The error code of an error answer; null on success'),
    latency_ms: z.number().int().describe('Time spent in the service, in milliseconds'),
    idempotency_key: z.string().nullable(),
    idempotent_replayed: z.boolean().describe('The answer was the stored one of an earlier request with this Idempotency-Key (Idempotent-Replayed: true)'),
    replay_of: z.string().nullable().describe('For a replay: the request id of the request whose answer was replayed'),
    via: z.enum(['api_key', 'console']),
    key_id: z.string().nullable().describe('The id (prefix) of the API key; null for a console session'),
    member_id: z.string().describe('The member the key or console session belongs to'),
    source_ip: z.string().nullable(),
    user_agent: z.string().nullable(),
    signature: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe(
        'For 401 auth.signature.invalid: what the service signed (the error details: each part as received, the body as length and SHA-256, string_to_sign)',
      ),
    request_body: RequestLogBody.nullable().describe('Errors only (status 400 and above): the request body, redacted'),
    response_body: RequestLogBody.nullable().describe('Errors only: the error answer, redacted'),
  })
  .meta({ id: 'RequestLogEntry' });

export const RequestLogPage = page(RequestLogEntry).meta({ id: 'RequestLogPage' });

const KNOWN_CODES = new Set(Object.keys(ERROR_CODES));

export const RequestLogQuery = pageQuery.extend({
  status: z
    .string()
    .regex(/^[1-5](\d\d|xx)$/, 'a status such as 422, or a class such as 4xx')
    .optional()
    .describe('An exact status (422) or a class (4xx, 5xx)'),
  code: z
    .string()
    .refine((c) => KNOWN_CODES.has(c), 'an error code of the catalogue (docs/guides/errors.md), e.g. auth.signature.invalid')
    .optional()
    .describe('Error code, e.g. auth.signature.invalid'),
  path: singleLine(
    z
      .string()
      .regex(/^\/v1(\/|$)/, 'a path from /v1, e.g. /v1/bookings')
      .max(512),
  )
    .optional()
    .describe('Paths starting with this, e.g. /v1/bookings'),
  request_id: RequestId.optional().describe('One request id (X-Request-Id)'),
  idempotency_key: singleLine(z.string().max(MAX_IDEMPOTENCY_KEY_LENGTH))
    .refine(isIdempotencyKey, `an Idempotency-Key as the header takes it: not blank, at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`)
    .optional()
    .describe('Requests sent with this Idempotency-Key'),
  key: z
    .string()
    .regex(/^[a-z0-9]{12}$/, 'a key id: the 12 characters after sk_live_ or sk_test_')
    .optional()
    .describe("Requests made with this API key (its id, the key's prefix)"),
  occurred_from: BoundedInstant.optional().describe('Requests received at or after this instant'),
  occurred_to: BoundedInstant.optional().describe('Requests received at or before this instant'),
});

export const RequestLogParams = z.object({ request_id: RequestId.describe('The request id (X-Request-Id)') });
