import { route } from '../../shared/http/route';
import { teamRoutes } from '../../shared/team/routes';
import { revokeKey } from '../../shared/team/service';

export const handler = route(teamRoutes.revokeApiKey, async ({ tenant, params }) => ({ body: await revokeKey(tenant, params.key_id) }));
