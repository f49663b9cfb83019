import { route } from '../../shared/http/route';
import { getDeliveryWithEvent } from '../../shared/webhooks/list';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { deliveryDetailView } from '../../shared/webhooks/views';

export const handler = route(webhookRoutes.getWebhookDelivery, async ({ tenant, params }) => {
  const { delivery, event } = await getDeliveryWithEvent(tenant, params.id);
  return { body: deliveryDetailView(delivery, event) };
});
