import { route } from '../../shared/http/route';
import { teamRoutes } from '../../shared/team/routes';
import { changeRole } from '../../shared/team/service';

export const handler = route(teamRoutes.updateTeamMemberRole, async ({ tenant, params, body }) => ({
  body: await changeRole(tenant, params.user_id, body.role),
}));
