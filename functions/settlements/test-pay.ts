import { route } from '../../shared/http/route';
import { paySettlementNow } from '../../shared/settlements/pay';
import { settlementRoutes } from '../../shared/settlements/routes';
import { settlementView } from '../../shared/settlements/views';

/** Sandbox test helper: a simulated transfer of the total due. */
export const handler = route(settlementRoutes.paySettlementTestHelper, async ({ tenant, params, body, seal }) => ({
  body: settlementView(await paySettlementNow(tenant, params.id, body?.transfer_reference, seal(settlementView))),
}));
