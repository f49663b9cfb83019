import * as z from 'zod';
import { BoundedInstant, singleLine } from '../http/bounds';
import { personal, pub } from '../http/data-class';
import { KeyId, page, pageQuery, RequestId } from '../http/schemas';
import { ERROR_CODES } from '../kernel/errors';
import { MAX_JSON_DEPTH } from '../kernel/json-depth';
import { isIdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH } from '../platform/idempotency';
import { CONTENT_FORM, MAX_BODY_CHARS } from './redact';

export const RequestLogBody = z
  .object({
    content: pub(z.string())
      .nullable()
      .describe(
        `The body parsed, redacted and written again as compact JSON (content_form), cut at ${MAX_BODY_CHARS} characters: not the bytes themselves (spacing, escapes and number forms may differ), so its hash is not theirs; what the log does not keep is a marker such as [personal 12 bytes sha256:3bc51062]. null when it is not kept`,
      ),
    content_form: pub(z.enum([CONTENT_FORM]))
      .nullable()
      .describe('reserialized_redacted: content is the body re-serialized from its parsed JSON, and redacted; null without content'),
    bytes: pub(z.number().int()).describe('The size of the body in bytes, as received (a request) or sent (an answer)'),
    sha256: pub(z.string())
      .nullable()
      .describe(
        "SHA-256 (hex) of the body as received (a request) or sent (an answer): a request's is what its signature covers (signature.body_sha256), to compare with what your code hashed; null for an entry written before it was recorded",
      ),
    truncated: pub(z.boolean()).describe(`true when content stops at ${MAX_BODY_CHARS} characters`),
    omitted: pub(z.string())
      .optional()
      .describe(
        `Why nothing of the body is kept: a body that is not JSON cannot be redacted field by field, a larger body than the service reads is not read, one nested more than ${MAX_JSON_DEPTH} levels deep is not walked`,
      ),
  })
  .meta({ id: 'RequestLogBody' });

export const RequestLogEntry = z
  .object({
    request_id: pub(z.string()).describe('X-Request-Id of the answer'),
    occurred_at: pub(z.iso.datetime()).describe('When the service received the request'),
    environment: pub(z.enum(['live', 'test'])),
    method: pub(z.string()),
    path: pub(z.string()).describe("The path as received, each segment the route's own or a marker (a parameter of the wrong form, or not public)"),
    query: pub(z.string())
      .nullable()
      .describe('The raw query string, each value kept only if its parameter is public and the value valid (else a marker); null without one'),
    status: pub(z.number().int()),
    error_code: pub(z.string()).nullable().describe('The error code of an error answer; null on success'),
    latency_ms: pub(z.number().int()).describe('Time spent in the service, in milliseconds'),
    idempotency_key: pub(z.string())
      .nullable()
      .describe('The Idempotency-Key as sha256:<hex of its SHA-256>, never the key: the idempotency_key filter takes the key itself and hashes it'),
    idempotent_replayed: pub(z.boolean()).describe('The answer was the stored one of an earlier request with this Idempotency-Key (Idempotent-Replayed: true)'),
    replay_of: pub(z.string()).nullable().describe('For a replay: the request id of the request whose answer was replayed'),
    via: pub(z.enum(['api_key', 'console'])),
    key_id: KeyId.nullable().describe('The key id of the API key; null for a console session'),
    member_id: pub(z.string()).describe('The member the key or console session belongs to'),
    key_name: personal(z.string())
      .nullable()
      .describe("The key's name as it is now (read with the log, never kept in it); null for a console session, a key without a name or one deleted"),
    member_email: personal(z.string())
      .nullable()
      .describe("The member's e-mail address as it is now (read with the log, never kept in it); null for a member removed since"),
    source_ip: personal(z.string()).nullable(),
    user_agent: personal(z.string()).nullable(),
    signature: pub(z.record(z.string(), z.unknown()))
      .nullable()
      .describe(
        'For 401 auth.signature.invalid: what the service signed (the error details: each part as received, redacted as the path and query are, the body as length and SHA-256, string_to_sign rebuilt from those parts)',
      ),
    request_body: RequestLogBody.nullable().describe('Errors only (status 400 and above): the request body, redacted, with its length and SHA-256 as received'),
    response_body: RequestLogBody.nullable().describe('Errors only: the error answer, redacted'),
  })
  .meta({ id: 'RequestLogEntry' });

export const RequestLogPage = page(RequestLogEntry).meta({ id: 'RequestLogPage' });

const KNOWN_CODES = new Set(Object.keys(ERROR_CODES));

export const RequestLogQuery = pageQuery.extend({
  status: pub(z.string().regex(/^[1-5](\d\d|xx)$/, 'a status such as 422, or a class such as 4xx'))
    .optional()
    .describe('An exact status (422) or a class (4xx, 5xx)'),
  code: pub(z.string().refine((c) => KNOWN_CODES.has(c), 'an error code of the catalogue (docs/guides/errors.md), e.g. auth.signature.invalid'))
    .optional()
    .describe('Error code, e.g. auth.signature.invalid'),
  // Free text after /v1: a segment may be anything.
  path: personal(
    singleLine(
      z
        .string()
        .regex(/^\/v1(\/|$)/, 'a path from /v1, e.g. /v1/bookings')
        .max(512),
    ),
  )
    .optional()
    .describe('Paths starting with this, e.g. /v1/bookings'),
  request_id: RequestId.optional().describe('One request id (X-Request-Id)'),
  // Personal: the caller's own text, which the service hashes (as it stores it) before it looks.
  idempotency_key: personal(
    singleLine(z.string().max(MAX_IDEMPOTENCY_KEY_LENGTH)).refine(
      isIdempotencyKey,
      `an Idempotency-Key as the header takes it: not blank, at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
    ),
  )
    .optional()
    .describe(
      'Requests sent with this Idempotency-Key: the key itself, which the service hashes as it stores it (sha256:<hex>, as entries show it, is taken too)',
    ),
  key: pub(z.string().regex(/^[a-z0-9]{12}$/, 'a key id: the 12 characters after sk_live_ or sk_test_'))
    .optional()
    .describe("Requests made with this API key (its id, the key's prefix)"),
  occurred_from: BoundedInstant.optional().describe('Requests received at or after this instant'),
  occurred_to: BoundedInstant.optional().describe('Requests received at or before this instant'),
});

export const RequestLogParams = z.object({ request_id: RequestId.describe('The request id (X-Request-Id)') });
