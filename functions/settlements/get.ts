import { route } from '../../shared/http/route';
import { getSettlement } from '../../shared/settlements/read';
import { settlementRoutes } from '../../shared/settlements/routes';
import { settlementView } from '../../shared/settlements/views';

export const handler = route(settlementRoutes.getSettlement, async ({ tenant, params }) => ({ body: settlementView(await getSettlement(tenant, params.id)) }));
