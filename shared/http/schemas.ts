import * as z from 'zod';
import { isCalendarDate } from '../kernel/time';
import { MAX_CURSOR_LENGTH } from '../platform/cursor';
import { personal, pub } from './data-class';

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
    details: personal(z.record(z.string(), z.unknown())).optional().describe('Structured details: offending field, expected value'),
  })
  .meta({ id: 'ErrorFields' });

export const ErrorBody = z
  .object({ code: pub(z.string()).describe('Stable code of the form domain.subdomain.detail'), ...ErrorFields.shape })
  .meta({ id: 'Error' });

export const Money = z
  .object({
    amount: pub(z.string().regex(/^-?\d+\.\d{2}$/)),
    currency: pub(z.literal('MAD')),
  })
  .meta({ id: 'Money' });

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
