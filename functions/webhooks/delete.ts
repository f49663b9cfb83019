import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';
import { deleteEndpoint } from '../../shared/webhooks/service';

export const handler = route(ROUTES.deleteWebhook, async ({ principal, params }) => ({ body: await deleteEndpoint(principal, params.id) }));
