import { route } from '../../shared/http/route';
import { replay } from '../../shared/webhooks/replay';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { deliveryView } from '../../shared/webhooks/views';

export const handler = route(webhookRoutes.replayWebhookDelivery, async ({ tenant, params, seal }) => ({
  body: deliveryView(await replay(tenant, params.id, seal(deliveryView))),
}));
