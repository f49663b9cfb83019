import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';
import { listMembers } from '../../shared/team/service';

export const handler = route(ROUTES.listTeamMembers, async ({ principal }) => ({ body: { data: await listMembers(principal) } }));
