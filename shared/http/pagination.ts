import { ApiError } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import { decodeCursor, encodeCursor } from '../platform/cursor';
import { cursorKey } from '../platform/service-secret';

export interface Pager<P> {
  position: P | undefined;
  next(position: P | undefined): Promise<string | null>;
}

/**
 * Decodes the request's cursor for this endpoint and caller, and encodes the
 * next one. Cursors are bound to the endpoint, the partner and the environment.
 */
export async function pager<P>(endpoint: string, tenant: Tenant, cursor: string | undefined, queryHash?: string): Promise<Pager<P>> {
  const key = await cursorKey();
  const scope = { endpoint, partnerId: tenant.partnerId, env: tenant.env };
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
    if (queryHash !== undefined && (position as { h?: string } | undefined)?.h !== queryHash) {
      throw new ApiError('pagination.cursor.invalid', 'This cursor belongs to a different query: keep the same filters and sort while paging.');
    }
  }
  return { position, next: async (p) => (p === undefined ? null : encodeCursor(key, scope, p)) };
}

export function pageMeta(count: number, pageSize: number, nextCursor: string | null) {
  return { count, next_cursor: nextCursor, page_size: pageSize };
}

/**
 * One page of a keyset list: decodes the cursor into the sort key of the last
 * row seen, reads the next rows, and answers `{data, meta}` with the cursor of
 * the following page (null on the last one).
 */
export async function keysetPage<T, V>(
  endpoint: string,
  tenant: Tenant,
  query: { limit: number; cursor?: string },
  list: (after: string | undefined) => Promise<{ items: T[]; next?: string }>,
  view: (item: T) => V,
) {
  const page = await pager<string>(endpoint, tenant, query.cursor);
  const { items, next } = await list(page.position);
  return { data: items.map(view), meta: pageMeta(items.length, query.limit, await page.next(next)) };
}
