import { z } from 'zod';
import { ApiError } from '../errors';
import { decodeCursor, encodeCursor, MAX_CURSOR_LENGTH } from '../platform/cursor';
import { cursorKey } from '../platform/service-secret';
import type { Principal } from './context';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

/** `limit` and `cursor` of every list endpoint; extend with the endpoint's own filters. */
export const pageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .transform((n) => Math.min(n, MAX_PAGE_SIZE))
    .default(DEFAULT_PAGE_SIZE)
    .describe(`Page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}); larger values are clamped to ${MAX_PAGE_SIZE}.`),
  cursor: z.string().max(MAX_CURSOR_LENGTH).optional().describe('Opaque cursor from meta.next_cursor of the previous page.'),
});

/** Validation failures of these query fields get the pagination codes. */
export const PAGINATION_FIELD_CODES = { limit: 'pagination.limit.invalid', cursor: 'pagination.cursor.invalid' } as const;

export interface Pager<P> {
  position: P | undefined;
  next(position: P | undefined): Promise<string | null>;
}

/**
 * Decodes the request's cursor for this endpoint and caller, and encodes the
 * next one. Cursors are bound to the endpoint, the partner and the environment.
 */
export async function pager<P>(endpoint: string, principal: Principal, cursor: string | undefined): Promise<Pager<P>> {
  const key = await cursorKey();
  const scope = { endpoint, partnerId: principal.partnerId, env: principal.env };
  let position: P | undefined;
  if (cursor !== undefined) {
    const r = decodeCursor<P>(key, scope, cursor);
    if (!r.ok) {
      if (r.reason === 'wrong_endpoint') {
        throw new ApiError('pagination.cursor.wrong_endpoint', 'This cursor was issued by another list endpoint; cursors only work where they were returned.');
      }
      throw new ApiError('pagination.cursor.invalid', 'The cursor is invalid: pass meta.next_cursor unchanged, with the key that received it.');
    }
    position = r.position;
  }
  return { position, next: async (p) => (p === undefined ? null : encodeCursor(key, scope, p)) };
}

export function pageMeta(count: number, pageSize: number, nextCursor: string | null) {
  return { count, next_cursor: nextCursor, page_size: pageSize };
}
