import { route } from '../../shared/http/route';
import { getDelivery } from '../../shared/webhooks/list';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { deliveryDetailView } from '../../shared/webhooks/views';

export const handler = route(webhookRoutes.getWebhookDelivery, async ({ tenant, params }) => ({
  body: deliveryDetailView(await getDelivery(tenant, params.id)),
}));
