import { route } from '../../shared/http/route';
import { testEndpoint } from '../../shared/webhooks/endpoints';
import { webhookRoutes } from '../../shared/webhooks/routes';

export const handler = route(webhookRoutes.testWebhook, async ({ tenant, params }) => ({ body: await testEndpoint(tenant, params.id) }));
