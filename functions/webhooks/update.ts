import { route } from '../../shared/http/route';
import { updateEndpoint } from '../../shared/webhooks/endpoints';
import { webhookRoutes } from '../../shared/webhooks/routes';

export const handler = route(webhookRoutes.updateWebhook, async ({ tenant, params, body }) => ({ body: await updateEndpoint(tenant, params.id, body) }));
