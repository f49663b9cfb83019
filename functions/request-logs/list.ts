import { keysetPage } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { requestActors } from '../../shared/request-logs/actors';
import { requestLogRoutes } from '../../shared/request-logs/routes';
import { requestLogStore } from '../../shared/request-logs/store';
import { requestLogView } from '../../shared/request-logs/views';

const def = requestLogRoutes.listRequestLogs;

export const handler = route(def, async ({ tenant, query }) => {
  const actors = requestActors(tenant);
  const list = async (after: string | undefined) => actors.load(await requestLogStore.list(tenant, query, query.limit, after));
  return { body: await keysetPage(def.id, tenant, query, list, (e) => requestLogView(e, actors)) };
});
