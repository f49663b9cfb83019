import { route } from '../../shared/http/route';
import { listEndpoints } from '../../shared/webhooks/endpoints';
import { webhookRoutes } from '../../shared/webhooks/routes';

export const handler = route(webhookRoutes.listWebhooks, async ({ tenant }) => ({ body: await listEndpoints(tenant) }));
