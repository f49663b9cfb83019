import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';
import { listEndpoints } from '../../shared/webhooks/service';

export const handler = route(ROUTES.listWebhooks, async ({ principal }) => ({ body: { data: await listEndpoints(principal) } }));
