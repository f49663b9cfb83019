import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';
import { endpointView, getEndpoint } from '../../shared/webhooks/service';

export const handler = route(ROUTES.getWebhook, async ({ principal, params }) => ({ body: endpointView(await getEndpoint(principal, params.id)) }));
