import { route } from '../../shared/http/route';
import { settlementRoutes } from '../../shared/settlements/routes';
import { runSandboxSettlements } from '../../shared/settlements/run';
import { settlementListView } from '../../shared/settlements/views';

/** Sandbox test helper: the monthly job for the caller's tenant, now. */
export const handler = route(settlementRoutes.runSettlementsTestHelper, async ({ tenant, body, seal }) => ({
  body: settlementListView(await runSandboxSettlements(tenant, body?.period, seal(settlementListView))),
}));
