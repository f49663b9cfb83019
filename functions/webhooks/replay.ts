import { route } from '../../shared/http/route';
import { replay } from '../../shared/webhooks/replay';
import { webhookRoutes } from '../../shared/webhooks/routes';

export const handler = route(webhookRoutes.replayWebhookDelivery, async ({ tenant, params }) => ({ body: await replay(tenant, params.id) }));
