import * as z from 'zod';
import { personal, pub, secret } from '../http/data-class';
import type { RouteDef } from '../http/route-def';
import { Money } from '../http/schemas';
import { signingPrefix } from '../platform/signature';
import { scrub, type Withheld } from './marker';
import { MAX_BODY_CHARS, redactPath, redactQuery, redactValue } from './redact';

/**
 * How the request log reads an error answer: the error shape with the details the service's errors carry,
 * each with its class (shared/kernel/errors.ts has the codes; the details are read here, as the OpenAPI
 * document gives them as a free map). A detail this schema does not name is withheld. The service's own
 * sentences (message, a field's message) are kept, but any value the entry withholds is masked where they
 * quote it (Withheld.echoesMasked), and they are scrubbed of what looks like a credential.
 */

/** A word of the service's vocabulary: a status, a role, a scope. */
const Token = pub(z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/));
/** An id or a short word a caller may have chosen (a kid, a path parameter): no underscore, so never an API key. */
const Label = pub(z.string().regex(/^[A-Za-z0-9=.:-]{1,64}$/));
const Count = pub(z.number());
const Instant = pub(z.iso.datetime({ offset: true }));
const Id = pub(z.uuid());
const Month = pub(z.string().regex(/^\d{4}-\d{2}$/));
const Sentence = pub(z.string());
const Expected = pub(z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])), Money]));

/** The signature diagnostics of auth.signature.invalid (shared/platform/signature.ts), as the log may keep them. */
export const SignatureDiagnostics = z.object({
  signature_version: pub(z.union([z.number().int(), z.string().regex(/^\d{1,3}$/)])),
  supported_versions: pub(z.array(z.number().int())),
  timestamp: pub(z.string().regex(/^\d{1,12}$/)),
  method: pub(z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])),
  // Redacted as the entry's path and query, by the route's template and query schema (redactDiagnostics).
  path: pub(z.string()),
  // The caller's own text, signed by version 2: withheld, as the entry's idempotency_key.
  idempotency_key: personal(z.string()),
  body_length: pub(z.number().int()),
  body_sha256: pub(z.string().regex(/^[0-9a-f]{64}$/)),
  // Rebuilt from the redacted parts (redactDiagnostics).
  string_to_sign: pub(z.string()),
});

const FieldError = z.object({
  field: Sentence,
  location: pub(z.enum(['body', 'query', 'path', 'header'])),
  message: Sentence,
  expected: Expected,
  allowed: pub(z.array(z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/))),
  received: Instant,
});

const ErrorDetails = SignatureDiagnostics.extend({
  errors: z.array(FieldError),
  field: Sentence,
  header: Token,
  received: pub(z.union([z.number(), z.iso.datetime({ offset: true })])),
  expected: Expected,
  position: Count,
  max_bytes: Count,
  length: Count,
  limit: Count,
  reset: Count,
  max: Count,
  attempts: Count,
  max_seconds: Count,
  signed_in_seconds_ago: Count,
  max_travelers: Count,
  min_travelers: Count,
  requested: Count,
  remaining: Count,
  travelers_quoted: Count,
  travelers_named: Count,
  booking_window_days: Count,
  weekdays: pub(z.array(z.number().int())),
  announced_version: pub(z.string().regex(/^\d{1,3}$/)),
  required_scope: Token,
  role: Token,
  environment: Token,
  status: Token,
  allowed_from: pub(z.array(z.string().regex(/^[A-Z_]{1,32}$/))),
  allowed_methods: pub(z.array(z.string().regex(/^[A-Z]{1,10}$/))),
  action: Token,
  purpose: Token,
  reason: pub(z.string().regex(/^[a-z_]{1,64}$/)),
  rejection_reason: Token,
  period: Month,
  running_period: Month,
  latest_closable_period: Month,
  amount_received: Money,
  total_due: Money,
  difference: Money,
  confirmed: Money,
  user_id: Id,
  member_id: Id,
  rate_pack_id: Id,
  quote_id: Id,
  signed_quote_id: Id,
  reviewable_id: Id,
  file_id: Id,
  booking_number: pub(z.string().regex(/^[A-Z]{3}-[A-Z0-9]{4}-[A-Z0-9]{4}$/)),
  start_date: pub(z.iso.date()),
  today: pub(z.iso.date()),
  booking_mode: Token,
  start_times: pub(z.array(z.string().regex(/^\d{2}:\d{2}$/))),
  travelers: pub(z.array(z.object({ index: z.number().int(), age: z.number().int() }))),
  age_brackets: pub(z.array(z.object({ code: z.string().regex(/^[A-Z0-9_]{1,32}$/), min_age: z.number().int(), max_age: z.number().int() }))),
  starts_at: Instant,
  now: Instant,
  to: Instant,
  latest_to: Instant,
  advancing_to: Instant.nullable(),
  expires_at: Instant,
  previous_secret_expires_at: Instant,
  alg: Label.nullable(),
  kid: Label,
  id: Label,
  email: personal(z.string()),
  partner_reference: personal(z.string()),
  url: secret(z.string()),
}).partial();

/** The error shape (shared/http/respond.ts) as the request log reads it. */
export const LoggedError = z.object({
  code: pub(z.string().regex(/^[a-z_]+(\.[a-z_]+)+$/)),
  message: Sentence,
  request_id: pub(z.string().regex(/^[A-Za-z0-9=_-]{1,128}$/)),
  details: ErrorDetails,
});

/**
 * Every string kept in `value` with what the entry withholds masked and credentials scrubbed. Past the
 * characters an excerpt keeps (MAX_BODY_CHARS), a string is withheld instead: it would be cut anyway, and
 * this bounds the work whatever an error lists (one entry per unknown field).
 */
function sentencesMasked(value: unknown, w: Withheld, budget = { chars: MAX_BODY_CHARS }, depth = 0): unknown {
  if (typeof value === 'string') {
    budget.chars -= value.length;
    return budget.chars < 0 ? w.text('unknown', value) : scrub(w.echoesMasked(value));
  }
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => sentencesMasked(v, w, budget, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sentencesMasked(v, w, budget, depth + 1)]));
}

/** A path?query as received, redacted by the route's template and query schema. */
export function redactPathWithQuery(pathWithQuery: string, def: RouteDef, w: Withheld): string {
  const q = pathWithQuery.indexOf('?');
  if (q === -1) return redactPath(pathWithQuery, def, w);
  return `${redactPath(pathWithQuery.slice(0, q), def, w)}?${redactQuery(pathWithQuery.slice(q + 1), def.request?.query, w)}`;
}

/**
 * The signature diagnostics as the log keeps them: each part by its class, the path and query as the entry's,
 * and string_to_sign rebuilt from those parts, so that it still reads line by line against the caller's.
 */
export function redactDiagnostics(details: Record<string, unknown>, def: RouteDef, w: Withheld): Record<string, unknown> {
  const out = redactValue(details, SignatureDiagnostics, w) as Record<string, unknown>;
  if (typeof details.path === 'string') out.path = redactPathWithQuery(details.path, def, w);
  if (typeof details.string_to_sign === 'string' && typeof out.path === 'string') {
    const version = details.signature_version === 2 ? '2' : '1';
    const parts = { version, timestamp: String(out.timestamp), method: String(out.method), pathWithQuery: out.path } as const;
    out.string_to_sign = `${signingPrefix({ ...parts, idempotencyKey: String(out.idempotency_key ?? '') })}${String(out.body_sha256)}`;
  }
  return out;
}

/** An error answer's parsed body as the log keeps it; the signature diagnostics in its details as the entry's `signature`. */
export function redactErrorBody(body: unknown, def: RouteDef, w: Withheld): unknown {
  const out = redactValue(body, LoggedError, w);
  const { code, details } = (body ?? {}) as { code?: unknown; details?: unknown };
  if (code === 'auth.signature.invalid' && details && typeof details === 'object' && out && typeof out === 'object') {
    (out as Record<string, unknown>).details = redactDiagnostics(details as Record<string, unknown>, def, w);
  }
  return sentencesMasked(out, w);
}
