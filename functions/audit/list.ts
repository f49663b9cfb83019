import { pageMeta, pager } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { listAudit } from '../../shared/platform/audit';
import { ROUTES } from '../../shared/routes';

export const handler = route(ROUTES.listAuditEvents, async ({ principal, query }) => {
  const page = await pager<string>(ROUTES.listAuditEvents.id, principal, query.cursor);
  const { items, next } = await listAudit(principal.partnerId, principal.env, query.limit, page.position);
  return { body: { data: items, meta: pageMeta(items.length, query.limit, await page.next(next)) } };
});
