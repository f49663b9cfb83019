import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';
import { revokeKey } from '../../shared/team/service';

export const handler = route(ROUTES.revokeApiKey, async ({ principal, params }) => ({ body: await revokeKey(principal, params.key_id) }));
