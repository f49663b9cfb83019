import { route } from '../../shared/http/route';
import { updateEndpoint } from '../../shared/webhooks/endpoints';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { endpointView } from '../../shared/webhooks/views';

export const handler = route(webhookRoutes.updateWebhook, async ({ tenant, params, body, seal }) => ({
  body: endpointView(await updateEndpoint(tenant, params.id, body, seal(endpointView))),
}));
