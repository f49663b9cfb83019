import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';
import { createKey } from '../../shared/team/service';

export const handler = route(ROUTES.createApiKey, async ({ principal, body }) => ({ status: 201, body: await createKey(principal, body.member_id) }));
