import { route } from '../../shared/http/route';
import { deleteEndpoint } from '../../shared/webhooks/endpoints';
import { webhookRoutes } from '../../shared/webhooks/routes';

export const handler = route(webhookRoutes.deleteWebhook, async ({ tenant, params, seal }) => ({
  body: await deleteEndpoint(
    tenant,
    params.id,
    seal((d) => d),
  ),
}));
