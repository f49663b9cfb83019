import { createHash } from 'node:crypto';
import { catalogRoutes } from '../../shared/catalog/routes';
import { listAdventures } from '../../shared/catalog/service';
import { pageMeta, pager } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { parseMad } from '../../shared/kernel/money';

const def = catalogRoutes.listAdventures;
const toMad = (s?: string) => (s === undefined ? undefined : parseMad(s));

export const handler = route(def, async ({ tenant, query }) => {
  const { cursor, limit, ...filters } = query;
  // The offset cursor is bound to the query it was issued for.
  const queryHash = createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 10);
  const page = await pager<{ o: number; h: string }>(def.id, tenant, cursor, queryHash);
  const offset = page.position?.o ?? 0;
  const { items, total } = await listAdventures(tenant, {
    ...filters,
    min_price: toMad(filters.min_price),
    max_price: toMad(filters.max_price),
    offset,
    limit,
  });
  const next = offset + items.length < total ? { o: offset + items.length, h: queryHash } : undefined;
  return {
    body: { data: items, meta: { ...pageMeta(items.length, limit, await page.next(next)), total_results: total, page_number: Math.floor(offset / limit) + 1 } },
  };
});
