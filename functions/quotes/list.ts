import { pageMeta, pager } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { listQuotes, quoteSummaryView } from '../../shared/quotes/service';
import { ROUTES } from '../../shared/routes';

export const handler = route(ROUTES.listQuotes, async ({ principal, query }) => {
  const page = await pager<string>(ROUTES.listQuotes.id, principal, query.cursor);
  const { items, next } = await listQuotes(principal, query.limit, page.position);
  return { body: { data: items.map((q) => quoteSummaryView(q)), meta: pageMeta(items.length, query.limit, await page.next(next)) } };
});
