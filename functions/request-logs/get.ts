import { route } from '../../shared/http/route';
import { notFound } from '../../shared/kernel/errors';
import { requestActors } from '../../shared/request-logs/actors';
import { requestLogRoutes } from '../../shared/request-logs/routes';
import { requestLogStore } from '../../shared/request-logs/store';
import { requestLogView } from '../../shared/request-logs/views';

export const handler = route(requestLogRoutes.getRequestLog, async ({ tenant, params }) => {
  const entry = await requestLogStore.get(tenant, params.request_id);
  if (!entry) throw notFound('Request', params.request_id);
  const actors = requestActors(tenant);
  await actors.load({ items: [entry] });
  return { body: requestLogView(entry, actors) };
});
