import { route } from '../../shared/http/route';
import { setMemberEnabled } from '../../shared/team/members';
import { teamRoutes } from '../../shared/team/routes';
import { memberView } from '../../shared/team/views';

/** PATCH /team/members/{user_id} {enabled}: the member, then its console user (disable); the reverse to enable. */
export const handler = route(teamRoutes.updateTeamMember, async ({ tenant, params, body, seal }) => {
  const view = (m: Parameters<typeof memberView>[0]) => memberView(m, tenant);
  return { body: view(await setMemberEnabled(tenant, params.user_id, body.enabled, seal(view))) };
});
