import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';
import { changeRole } from '../../shared/team/service';

export const handler = route(ROUTES.updateTeamMemberRole, async ({ principal, params, body }) => ({
  body: await changeRole(principal, params.user_id, body.role),
}));
