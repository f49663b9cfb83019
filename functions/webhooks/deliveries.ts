import { pageMeta, pager } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';
import { listDeliveries } from '../../shared/webhooks/service';

export const handler = route(ROUTES.listWebhookDeliveries, async ({ principal, query }) => {
  const page = await pager<string>(ROUTES.listWebhookDeliveries.id, principal, query.cursor);
  const { items, next } = await listDeliveries(principal, query, page.position);
  return { body: { data: items, meta: pageMeta(items.length, query.limit, await page.next(next)) } };
});
