import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';
import { updateEndpoint } from '../../shared/webhooks/service';

export const handler = route(ROUTES.updateWebhook, async ({ principal, params, body }) => ({ body: await updateEndpoint(principal, params.id, body) }));
