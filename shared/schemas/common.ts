import { z } from 'zod';

export const ErrorBody = z
  .object({
    code: z.string().describe('Stable code of the form domain.subdomain.detail'),
    message: z.string().describe('English text, never localized'),
    request_id: z.string().describe('Unique request id, also in the X-Request-Id header'),
    details: z.record(z.string(), z.unknown()).optional().describe('Structured details: offending field, expected value'),
  })
  .meta({ id: 'Error' });

export const Money = z
  .object({
    amount: z.string().regex(/^-?\d+\.\d{2}$/),
    currency: z.literal('MAD'),
  })
  .meta({ id: 'Money' });

export const PageMeta = z
  .object({
    count: z.number().int(),
    next_cursor: z.string().nullable(),
    page_size: z.number().int(),
    total_results: z.number().int().nullable().optional(),
    page_number: z.number().int().nullable().optional(),
  })
  .meta({ id: 'PageMeta' });

export const page = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), meta: PageMeta });

export const Health = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });

/** A comma-separated list of enum values in a query parameter, e.g. status=PENDING,FAILED. */
export function csvOf<T extends string>(values: readonly T[]) {
  return z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined) return undefined;
      const parts = s.split(',').map((x) => x.trim());
      const bad = parts.filter((x) => !values.includes(x as T));
      if (bad.length) ctx.addIssue({ code: 'custom', message: `unknown value ${bad.join(', ')}; expected a comma-separated list of ${values.join(', ')}` });
      return parts as T[];
    });
}
