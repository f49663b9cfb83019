import { bookingListView, listBookings } from '../../shared/bookings/service';
import { pageMeta, pager } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';

export const handler = route(ROUTES.listBookings, async ({ principal, query }) => {
  const page = await pager<string>(ROUTES.listBookings.id, principal, query.cursor);
  const { items, next } = await listBookings(principal, query, page.position);
  return { body: { data: items.map(bookingListView), meta: pageMeta(items.length, query.limit, await page.next(next)) } };
});
