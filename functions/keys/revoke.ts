import { route } from '../../shared/http/route';
import { teamRoutes } from '../../shared/team/routes';
import { revokeKey } from '../../shared/team/service';
import { keyView } from '../../shared/team/views';

export const handler = route(teamRoutes.revokeApiKey, async ({ tenant, params, seal }) => ({
  body: keyView(await revokeKey(tenant, params.key_id, seal(keyView))),
}));
