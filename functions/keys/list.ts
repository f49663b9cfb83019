import { keysetPage } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { teamRoutes } from '../../shared/team/routes';
import { listKeys } from '../../shared/team/service';
import { keyView } from '../../shared/team/views';

const def = teamRoutes.listApiKeys;

export const handler = route(def, async ({ tenant, query }) => ({
  body: await keysetPage(def.id, tenant, query, (after) => listKeys(tenant, query.limit, after), keyView),
}));
