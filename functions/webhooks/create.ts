import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';
import { createEndpoint } from '../../shared/webhooks/service';

export const handler = route(ROUTES.createWebhook, async ({ principal, body }) => ({ status: 201, body: await createEndpoint(principal, body) }));
