import { route } from '../../shared/http/route';
import { removeMember } from '../../shared/team/members';
import { teamRoutes } from '../../shared/team/routes';
import { removedMemberView } from '../../shared/team/views';

/** DELETE /team/members/{user_id}: the member, its link and e-mail items, its keys; then its console user. */
export const handler = route(teamRoutes.removeTeamMember, async ({ tenant, params, seal }) => {
  const view = (m: Parameters<typeof removedMemberView>[0]) => removedMemberView(m, tenant);
  return { body: view(await removeMember(tenant, params.user_id, seal(view))) };
});
