import { listBookings } from '../../shared/bookings/read';
import { bookingRoutes } from '../../shared/bookings/routes';
import { bookingListView } from '../../shared/bookings/views';
import { keysetPage } from '../../shared/http/pagination';
import { route } from '../../shared/http/route';

const def = bookingRoutes.listBookings;

export const handler = route(def, async ({ tenant, query }) => ({
  body: await keysetPage(def.id, tenant, query, (after) => listBookings(tenant, query, after), bookingListView),
}));
