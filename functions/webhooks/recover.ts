import { route } from '../../shared/http/route';
import { type RecoverResult, recoverEndpoint } from '../../shared/webhooks/recover';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { endpointView } from '../../shared/webhooks/views';

const view = (r: RecoverResult) => ({
  endpoint: endpointView(r.endpoint),
  since: r.since,
  resent: r.resent,
  brought_forward: r.brought_forward,
  truncated: r.truncated,
});

export const handler = route(webhookRoutes.recoverWebhook, async ({ tenant, params, body, seal }) => ({
  body: view(await recoverEndpoint(tenant, params.id, body, seal(view))),
}));
