import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';
import { testEndpoint } from '../../shared/webhooks/service';

export const handler = route(ROUTES.testWebhook, async ({ principal, params }) => ({ body: await testEndpoint(principal, params.id) }));
