import { route } from '../../shared/http/route';
import { getEndpoint } from '../../shared/webhooks/endpoints';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { endpointView } from '../../shared/webhooks/views';

export const handler = route(webhookRoutes.getWebhook, async ({ tenant, params }) => ({ body: endpointView(await getEndpoint(tenant, params.id)) }));
