import { keysetPage } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { listDeliveries } from '../../shared/webhooks/list';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { deliveryView } from '../../shared/webhooks/views';

const def = webhookRoutes.listWebhookDeliveries;

export const handler = route(def, async ({ tenant, query }) => ({
  body: await keysetPage(def.id, tenant, query, (after) => listDeliveries(tenant, query, after), deliveryView),
}));
