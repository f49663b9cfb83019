import { depthExceededAt, MAX_JSON_DEPTH } from '../kernel/json-depth';

/**
 * What a request log entry may keep of a body or a query string: personal data and secrets are replaced
 * before the entry's log line is written, so neither CloudWatch Logs nor the table ever holds them. Fields
 * are redacted by name wherever they sit (traveler and contact names, e-mails, phones, payment confirmations and
 * references, customer references, cancellation reasons, signing secrets, tokens, API keys), and any string is scrubbed of what looks like an
 * e-mail address, an API key, a webhook secret or a JWS/JWT. A body that is not JSON is not kept at all.
 */
export const REDACTED = '[redacted]';

const SENSITIVE_FIELDS = new Set([
  'first_name',
  'last_name',
  'full_name',
  'given_name',
  'family_name',
  'traveler_name',
  'email',
  'phone',
  'payment_confirmation',
  'payment_reference',
  'customer_reference',
  // Free text a partner's staff types: a cancellation's reason often names the customer.
  'reason',
  'signing_secret',
  'secret',
  'key',
  'api_key',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'password',
  'authorization',
]);

const SCRUBS: [RegExp, string][] = [
  [/eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '[redacted token]'],
  [/\bsk_(?:live|test)_[A-Za-z0-9_-]+/g, '[redacted api key]'],
  [/\bwhsec_[A-Za-z0-9+/=_-]+/g, '[redacted secret]'],
  // Bounded as RFC 5321 bounds an address (64 and 255): linear in the string, whatever a body holds.
  [/[^\s@"'<>(),;:]{1,64}@[^\s@"'<>(),;:]{1,255}\.[A-Za-z]{2,63}/g, '[redacted email]'],
];

const sensitive = (field: string) => SENSITIVE_FIELDS.has(field.toLowerCase().replace(/-/g, '_'));

export function scrub(s: string): string {
  return SCRUBS.reduce((out, [re, by]) => out.replace(re, by), s);
}

/**
 * A JSON value with every sensitive field replaced and every string scrubbed. The walk stops at MAX_JSON_DEPTH
 * levels (what lies deeper is replaced): a recursion as deep as its input ran out of stack (issue 40).
 */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrub(value);
  if (value && typeof value === 'object' && depth >= MAX_JSON_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sensitive(k) && v !== null ? REDACTED : redact(v, depth + 1)]));
  }
  return value;
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** A raw query string with the values of sensitive parameters replaced and the others scrubbed. */
export function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return scrub(pair);
      const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
      if (sensitive(decoded(name))) return `${name}=${REDACTED}`;
      // An encoded e-mail (a%40b.co) is scrubbed as the service reads it.
      const scrubbed = scrub(decoded(value));
      return `${name}=${scrubbed === decoded(value) ? value : scrubbed}`;
    })
    .join('&');
}

/** How much of each body an entry keeps, in characters of its redacted JSON: the log line stays far below CloudWatch's 256 KB event. */
export const MAX_BODY_CHARS = 8192;

export interface BodyExcerpt {
  /** The redacted body as JSON text, cut at MAX_BODY_CHARS. */
  content: string | null;
  /** The size of the body as sent, in bytes. */
  bytes: number;
  truncated: boolean;
  /** Why nothing of the body is kept (not JSON). */
  omitted?: string;
}

/** The redacted excerpt of a body, or null for an empty one. */
export function bodyExcerpt(raw: string | Buffer): BodyExcerpt | null {
  const bytes = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.byteLength;
  if (bytes === 0) return null;
  // Refused as request.body.too_deep (or sent to a route that reads no body): its entry is written, the body is not walked.
  if (depthExceededAt(raw) !== -1) {
    return { content: null, bytes, truncated: false, omitted: `nested more than ${MAX_JSON_DEPTH} levels deep: a body this deep is not kept` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString());
  } catch {
    return { content: null, bytes, truncated: false, omitted: 'not JSON: a body that cannot be redacted field by field is not kept' };
  }
  const kept = JSON.stringify(redact(parsed));
  return kept.length > MAX_BODY_CHARS ? { content: kept.slice(0, MAX_BODY_CHARS), bytes, truncated: true } : { content: kept, bytes, truncated: false };
}
