import { route } from '../../shared/http/route';
import { tenantNow } from '../../shared/kernel/clock';
import { notFound } from '../../shared/kernel/errors';
import { ageFailureStreak } from '../../shared/webhooks/health';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { endpointView } from '../../shared/webhooks/views';

// `hours` ago on the sandbox clock: the attempts that judge the streak read that clock.
export const handler = route(webhookRoutes.ageWebhookFailuresTestHelper, async ({ tenant, params, body }) => {
  const e = await ageFailureStreak(tenant.partnerId, tenant.env, params.id, body.hours, tenantNow(tenant));
  if (!e) throw notFound('Webhook endpoint', params.id);
  return { body: endpointView(e) };
});
