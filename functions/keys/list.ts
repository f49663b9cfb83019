import { accessRepository } from '../../shared/access/repository';
import { pageMeta, pager } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';
import { keyView } from '../../shared/team/service';

export const handler = route(ROUTES.listApiKeys, async ({ principal, query }) => {
  const page = await pager<string>(ROUTES.listApiKeys.id, principal, query.cursor);
  const { items, next } = await accessRepository.listKeys(principal.partnerId, principal.env, query.limit, page.position);
  return { body: { data: items.map(keyView), meta: pageMeta(items.length, query.limit, await page.next(next)) } };
});
