import { route } from '../../shared/http/route';
import { teamRoutes } from '../../shared/team/routes';
import { renameKey } from '../../shared/team/service';
import { keyView } from '../../shared/team/views';

export const handler = route(teamRoutes.renameApiKey, async ({ tenant, params, body, seal }) => ({
  body: keyView(await renameKey(tenant, params.key_id, body.name, seal(keyView))),
}));
