import { keysetPage } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { requestLogRoutes } from '../../shared/request-logs/routes';
import { requestLogStore } from '../../shared/request-logs/store';
import { requestLogView } from '../../shared/request-logs/views';

const def = requestLogRoutes.listRequestLogs;

export const handler = route(def, async ({ tenant, query }) => ({
  body: await keysetPage(def.id, tenant, query, (after) => requestLogStore.list(tenant, query, query.limit, after), requestLogView),
}));
