import { route } from '../../shared/http/route';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { testEndpoint } from '../../shared/webhooks/test-send';

export const handler = route(webhookRoutes.testWebhook, async ({ tenant, params, body, seal }) => ({
  body: await testEndpoint(
    tenant,
    params.id,
    body,
    seal((r) => r),
  ),
}));
