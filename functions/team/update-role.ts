import { route } from '../../shared/http/route';
import { changeRole } from '../../shared/team/members';
import { teamRoutes } from '../../shared/team/routes';
import { memberView } from '../../shared/team/views';

export const handler = route(teamRoutes.updateTeamMemberRole, async ({ tenant, params, body, seal }) => {
  const view = (m: Parameters<typeof memberView>[0]) => memberView(m, tenant);
  return { body: view(await changeRole(tenant, params.user_id, body.role, seal(view))) };
});
