import { pageMeta, pager } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { listSettlementLines } from '../../shared/settlements/read';
import { settlementRoutes } from '../../shared/settlements/routes';
import { settlementLineView } from '../../shared/settlements/views';

const def = settlementRoutes.listSettlementLines;

// The cursor carries the settlement's id: one settlement's cursor cannot page another's lines.
export const handler = route(def, async ({ tenant, params, query }) => {
  const page = await pager<{ k: string; h: string }>(def.id, tenant, query.cursor, params.id);
  const { items, next } = await listSettlementLines(tenant, params.id, query.limit, page.position?.k);
  return {
    body: {
      data: items.map(settlementLineView),
      meta: pageMeta(items.length, query.limit, await page.next(next === undefined ? undefined : { k: next, h: params.id })),
    },
  };
});
