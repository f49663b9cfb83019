import { route } from '../../shared/http/route';
import { rotateSigningSecret } from '../../shared/webhooks/rotation';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { endpointWithSecretView } from '../../shared/webhooks/views';

export const handler = route(webhookRoutes.rotateWebhookSecret, async ({ tenant, params, body, seal }) => ({
  body: endpointWithSecretView(await rotateSigningSecret(tenant, params.id, body, seal(endpointWithSecretView))),
}));
