import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';
import { replay } from '../../shared/webhooks/service';

export const handler = route(ROUTES.replayWebhookDelivery, async ({ principal, params }) => ({ status: 202, body: await replay(principal, params.id) }));
