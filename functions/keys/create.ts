import { route } from '../../shared/http/route';
import { teamRoutes } from '../../shared/team/routes';
import { createKey } from '../../shared/team/service';
import { newKeyView } from '../../shared/team/views';

export const handler = route(teamRoutes.createApiKey, async ({ tenant, body, seal }) => ({
  body: newKeyView(await createKey(tenant, body.member_id, body.name, seal(newKeyView))),
}));
