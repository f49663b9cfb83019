import { z } from 'zod';
import { MAX_CURSOR_LENGTH } from '../platform/cursor';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

/** `limit` and `cursor` of every list endpoint; extend with the endpoint's own filters. */
export const pageQuery = z.object({
  limit: z
    .string()
    .regex(/^\d+$/, 'an integer of at least 1')
    .transform(Number)
    .pipe(z.number().int().min(1))
    .transform((n) => Math.min(n, MAX_PAGE_SIZE))
    .default(DEFAULT_PAGE_SIZE)
    .describe(`Page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}); larger values are clamped to ${MAX_PAGE_SIZE}.`),
  cursor: z.string().max(MAX_CURSOR_LENGTH).optional().describe('Opaque cursor from meta.next_cursor of the previous page.'),
});

/** Validation failures of these query fields get the pagination codes. */
export const PAGINATION_FIELD_CODES = { limit: 'pagination.limit.invalid', cursor: 'pagination.cursor.invalid' } as const;

