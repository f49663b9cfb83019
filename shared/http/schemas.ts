import * as z from 'zod';
import { isCalendarDate } from '../kernel/time';
import { MAX_CURSOR_LENGTH } from '../platform/cursor';
import { personal, pub, secret } from './data-class';

export const Money = z
  .object({
    amount: pub(z.string().regex(/^-?\d+\.\d{2}$/)),
    currency: pub(z.literal('MAD')),
  })
  .meta({ id: 'Money' });

const count = () => pub(z.number().int());
const text = () => pub(z.string());

/** One offending field of a 400 (validation.*, pagination.*): `details.errors[]`. */
export const FieldError = z
  .object({
    field: personal(z.string()).describe('The field, dotted for a nested one (travelers.0.age), or (body) / (root)'),
    location: pub(z.enum(['body', 'query', 'path', 'header'])).optional(),
    message: personal(z.string()).describe('English sentence about the field'),
    expected: text().optional().describe('What the field takes, in words'),
    allowed: z.array(pub(z.string())).optional().describe('The values the field takes, when it takes a closed set'),
    received: personal(z.string()).optional().describe('What was received, when the error quotes it'),
  })
  .meta({ id: 'FieldError' });

/**
 * Every key an error's `details` may hold, each with one type whatever the code, so that a typed client (a Java
 * generator included) reads any error of any operation: a free map becomes Map<String,String> in Java, which
 * cannot hold `errors[]` nor a Money. ApiError takes its details as this type: a new key is declared here first.
 */
export const ErrorDetails = z
  .object({
    errors: z.array(FieldError).optional().describe('Validation errors: one entry per offending field'),
    field: personal(z.string()).optional(),
    header: text().optional(),
    received: personal(z.string()).optional().describe('The header value received (auth.session.environment_required)'),
    position: count().optional().describe('Byte offset in the body (request.body.*)'),
    max_bytes: count().optional(),
    length: count().optional(),
    limit: count().optional(),
    reset: count().meta({ format: 'int64' }).optional().describe('Unix time in seconds'),
    max: count().optional(),
    attempts: count().optional(),
    max_seconds: count().optional(),
    signed_in_seconds_ago: count().optional(),
    max_travelers: count().optional(),
    min_travelers: count().optional(),
    requested: count().optional(),
    remaining: count().optional(),
    travelers_quoted: count().optional().describe('booking.travelers.mismatch: travelers of the quote'),
    travelers_named: count().optional().describe('booking.travelers.mismatch: travelers the request named'),
    booking_window_days: count().optional(),
    max_depth: count().optional().describe('request.body.too_deep: the deepest nesting taken'),
    limit_per_minute: count().optional(),
    retry_after_seconds: count().optional(),
    scope: text().optional().describe('webhook.send.budget_exceeded: endpoint or environment'),
    endpoint_id: text().optional(),
    weekdays: z.array(count()).optional().describe('ISO weekdays, 1 = Monday'),
    required_scope: text().optional(),
    role: text().optional(),
    environment: text().optional(),
    status: text().optional(),
    allowed_from: z.array(text()).optional(),
    allowed_methods: z.array(text()).optional(),
    action: text().optional(),
    purpose: text().optional(),
    reason: text().optional(),
    rejection_reason: text().optional(),
    period: text().optional(),
    running_period: text().optional(),
    latest_closable_period: text().optional(),
    amount_received: Money.optional(),
    total_due: Money.optional(),
    difference: Money.optional(),
    confirmed: Money.optional().describe('payment.amount.mismatch: the amount the payment confirmation signed'),
    expected: Money.optional().describe("payment.amount.mismatch: the quote's amount"),
    user_id: text().optional(),
    member_id: text().optional(),
    rate_pack_id: text().optional(),
    quote_id: text().optional(),
    signed_quote_id: text().optional(),
    reviewable_id: text().optional(),
    file_id: text().optional(),
    booking_number: text().optional(),
    start_date: text().optional(),
    today: text().optional(),
    booking_mode: text().optional(),
    start_times: z.array(text()).optional(),
    travelers: z.array(z.object({ index: count(), age: count() })).optional(),
    age_brackets: z.array(z.object({ code: text(), min_age: count(), max_age: count() })).optional(),
    starts_at: text().optional(),
    now: text().optional(),
    to: text().optional(),
    latest_to: text().optional(),
    advancing_to: text().nullable().optional(),
    expires_at: text().optional(),
    previous_secret_expires_at: text().nullable().optional(),
    alg: text().nullable().optional(),
    kid: text().optional(),
    id: text().optional(),
    email: personal(z.string()).optional(),
    partner_reference: personal(z.string()).optional(),
    url: secret(z.string()).optional(),
    // auth.signature.invalid: what the service signed (shared/platform/signature.ts).
    signature_version: count().optional(),
    announced_version: personal(z.string()).optional().describe('An X-Signature-Version the service does not know, as received'),
    supported_versions: z.array(count()).optional(),
    timestamp: text().optional(),
    method: text().optional(),
    path: personal(z.string()).optional(),
    idempotency_key: personal(z.string()).optional(),
    body_length: count().optional(),
    body_sha256: text().optional(),
    string_to_sign: personal(z.string()).optional(),
  })
  .meta({ id: 'ErrorDetails' });
export type ErrorDetailsInput = z.input<typeof ErrorDetails>;

/**
 * Every error body but its code. Each error response of the document adds its
 * code as the enum of the codes it can carry (shared/openapi.ts): a subclass
 * that narrows an inherited String getter to an enum is what Java generators
 * cannot compile, so the base has no code to narrow.
 */
export const ErrorFields = z
  .object({
    message: pub(z.string()).describe('English text, never localized'),
    request_id: pub(z.string()).describe('Unique request id, also in the X-Request-Id header'),
    // What the caller sent may be quoted here: the request log reads each detail by its own class (shared/request-logs/error-body.ts).
    details: ErrorDetails.optional().describe('Structured details, where a code says so: the offending fields (errors[]), the limit, the expected value'),
  })
  .meta({ id: 'ErrorFields' });

export const ErrorBody = z
  .object({ code: pub(z.string()).describe('Stable code of the form domain.subdomain.detail'), ...ErrorFields.shape })
  .meta({ id: 'Error' });

export const PageMeta = z
  .object({
    count: pub(z.number().int()),
    // Opaque to the partner, but its position may come from a row (a reference, a name): treated as personal.
    next_cursor: personal(z.string()).nullable(),
    page_size: pub(z.number().int()),
    total_results: pub(z.number().int()).nullable().optional().meta({ format: 'int64' }),
    page_number: pub(z.number().int()).nullable().optional(),
  })
  .meta({ id: 'PageMeta' });

export const page = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), meta: PageMeta });

/**
 * A request id as the service gives it (X-Request-Id, an error's `request_id`): API Gateway's request id
 * (`requestContext.requestId` of an HTTP API, also its `apigw-requestid` header: 15 base64url characters and
 * `=`, e.g. `ALt0lgP-IAMEZPA=`; AWS documents no format, this is the one its answers show), or a lowercase
 * UUID (the local stack's gateway, and the id the service makes when an event carries none).
 */
export const REQUEST_ID_PATTERN = /^(?:[A-Za-z0-9_-]{15}=|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
export const RequestId = pub(
  z
    .string()
    .regex(REQUEST_ID_PATTERN, 'a request id as X-Request-Id gives it: 15 letters, digits, - or _ then =, or a lowercase UUID')
    .meta({ examples: ['ALt0lgP-IAMEZPA=', 'c3b1f0a2-7d4e-4f6a-9b8c-2e5d1a0f9c47'] }),
);

/** An API key's id, the 12 characters after sk_live_ / sk_test_: `key_id` wherever the API names a key. */
export const KeyId = pub(z.string()).describe("Key id: the 12 characters after sk_live_ / sk_test_ (the key's public prefix)");
/** An older name of a key id, answered beside it with the same value; marked deprecated in the OpenAPI document. */
export function keyIdAlias(name: string, nullable?: 'nullable') {
  const meta = { deprecated: true, description: `Deprecated alias of ${name}, same value: kept for integrations that read it; read ${name}.` };
  return nullable ? pub(z.string()).nullable().meta(meta) : pub(z.string()).meta(meta);
}

export const Health = z.object({ status: pub(z.literal('ok')) }).meta({ id: 'Health' });

/** The body of a write that takes no fields: none at all, or `{}` (the service takes an empty body as {}). */
export const EmptyBody = z.object({}).strict().meta({ id: 'EmptyRequest', description: 'No fields: send no body, or {}.' });

/** A comma-separated list of enum values in a query parameter, e.g. status=PENDING,FAILED. */
export function csvOf<T extends string>(values: readonly T[]) {
  return pub(
    z
      .string()
      .optional()
      .transform((s, ctx) => {
        if (s === undefined) return undefined;
        const parts = s.split(',').map((x) => x.trim());
        const bad = parts.filter((x) => !values.includes(x as T));
        if (bad.length) ctx.addIssue({ code: 'custom', message: `unknown value ${bad.join(', ')}; expected a comma-separated list of ${values.join(', ')}` });
        return parts as T[];
      }),
  );
}

/** A calendar date YYYY-MM-DD that exists. */
export const CalendarDate = z.string().refine(isCalendarDate, 'a calendar date YYYY-MM-DD').meta({ format: 'date', dataClass: 'public' });

/**
 * What a query field stands for, in the OpenAPI document: query values arrive as
 * text, so the zod schema parses digits into a number, but the document (and a
 * client generated from it) says what the value is, e.g. an integer of 1 to 100.
 * shared/openapi.ts puts this JSON Schema in place of the text's.
 */
export const queryForm = z.registry<Record<string, unknown>>();

/** `schema`, documented in the OpenAPI document as `json`. */
export function documentedAs<T extends z.ZodType>(json: Record<string, unknown>, schema: T): T {
  queryForm.add(schema, json);
  return schema;
}

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

/** `limit` and `cursor` of every list endpoint; extend with the endpoint's own filters. */
export const pageQuery = z.object({
  limit: documentedAs(
    // No maximum: the spec has the service clamp a larger limit (meta.page_size says what applied), so a validator must let it through.
    { type: 'integer', minimum: 1, default: DEFAULT_PAGE_SIZE },
    pub(
      z
        .string()
        .regex(/^\d+$/, 'an integer of at least 1')
        .transform(Number)
        .pipe(z.number().int().min(1))
        .transform((n) => Math.min(n, MAX_PAGE_SIZE))
        .default(DEFAULT_PAGE_SIZE),
    ).describe(`Page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}); the service clamps larger values to ${MAX_PAGE_SIZE}.`),
  ),
  cursor: personal(z.string().max(MAX_CURSOR_LENGTH)).optional().describe('Opaque cursor from meta.next_cursor of the previous page.'),
});

/** Validation failures of these query fields get the pagination codes. */
export const PAGINATION_FIELD_CODES = { limit: 'pagination.limit.invalid', cursor: 'pagination.cursor.invalid' } as const;
