import { route } from '../../shared/http/route';
import { resendMemberInvitation } from '../../shared/team/members';
import { teamRoutes } from '../../shared/team/routes';
import { memberView } from '../../shared/team/views';

/** POST /team/members/{user_id}/invitation: a new temporary password, e-mailed by Cognito. */
export const handler = route(teamRoutes.resendTeamMemberInvitation, async ({ tenant, params }) => ({
  body: memberView(await resendMemberInvitation(tenant, params.user_id), tenant),
}));
