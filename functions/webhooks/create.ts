import { route } from '../../shared/http/route';
import { createEndpoint } from '../../shared/webhooks/endpoints';
import { webhookRoutes } from '../../shared/webhooks/routes';

export const handler = route(webhookRoutes.createWebhook, async ({ tenant, body }) => ({ body: await createEndpoint(tenant, body) }));
