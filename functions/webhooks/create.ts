import { route } from '../../shared/http/route';
import { createEndpoint } from '../../shared/webhooks/endpoints';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { endpointWithSecretView } from '../../shared/webhooks/views';

export const handler = route(webhookRoutes.createWebhook, async ({ tenant, body, seal }) => ({
  body: endpointWithSecretView(await createEndpoint(tenant, body, seal(endpointWithSecretView))),
}));
