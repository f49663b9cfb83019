import { route } from '../../shared/http/route';
import { inviteMember } from '../../shared/team/members';
import { teamRoutes } from '../../shared/team/routes';
import { memberView } from '../../shared/team/views';

/** POST /team/members: the console user and the member; Cognito e-mails the temporary password. */
export const handler = route(teamRoutes.inviteTeamMember, async ({ tenant, body, seal }) => {
  const view = (m: Parameters<typeof memberView>[0]) => memberView(m, tenant);
  return { body: view(await inviteMember(tenant, body, seal(view))) };
});
