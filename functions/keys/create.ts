import { route } from '../../shared/http/route';
import { teamRoutes } from '../../shared/team/routes';
import { createKey } from '../../shared/team/service';

export const handler = route(teamRoutes.createApiKey, async ({ tenant, body }) => ({ body: await createKey(tenant, body.member_id) }));
