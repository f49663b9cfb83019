import { keysetPage } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { listSettlements } from '../../shared/settlements/read';
import { settlementRoutes } from '../../shared/settlements/routes';
import { settlementView } from '../../shared/settlements/views';

const def = settlementRoutes.listSettlements;

export const handler = route(def, async ({ tenant, query }) => ({
  body: await keysetPage(def.id, tenant, query, (after) => listSettlements(tenant, query, after), settlementView),
}));
