import { createBooking } from '../../shared/bookings/create';
import { bookingRoutes } from '../../shared/bookings/routes';
import { bookingView } from '../../shared/bookings/views';
import { route } from '../../shared/http/route';
import { tenantNow } from '../../shared/kernel/clock';

export const handler = route(bookingRoutes.createBooking, async ({ tenant, body, seal, deadline }) => ({
  body: bookingView(await createBooking(tenant, body, seal(bookingView), tenantNow(tenant), deadline)),
}));
