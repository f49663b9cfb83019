import { route } from '../../shared/http/route';
import { removeMember } from '../../shared/team/members';
import { teamRoutes } from '../../shared/team/routes';
import { memberView } from '../../shared/team/views';

/** DELETE /team/members/{user_id}: the member, its link and e-mail items, its keys; then its console user. */
export const handler = route(teamRoutes.removeTeamMember, async ({ tenant, params, seal }) => {
  const view = (m: Parameters<typeof memberView>[0]) => memberView(m, tenant);
  return { body: view(await removeMember(tenant, params.user_id, seal(view))) };
});
