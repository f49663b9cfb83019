import { route } from '../../shared/http/route';
import { listMembers } from '../../shared/team/members';
import { teamRoutes } from '../../shared/team/routes';

export const handler = route(teamRoutes.listTeamMembers, async ({ tenant }) => ({ body: { data: await listMembers(tenant) } }));
