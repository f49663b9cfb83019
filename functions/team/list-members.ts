import { route } from '../../shared/http/route';
import { teamRoutes } from '../../shared/team/routes';
import { listMembers } from '../../shared/team/service';

export const handler = route(teamRoutes.listTeamMembers, async ({ tenant }) => ({ body: { data: await listMembers(tenant) } }));
