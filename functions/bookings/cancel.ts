import { cancelBooking } from '../../shared/bookings/cancel';
import { getBooking } from '../../shared/bookings/read';
import { bookingRoutes } from '../../shared/bookings/routes';
import { bookingView } from '../../shared/bookings/views';
import { route } from '../../shared/http/route';
import { tenantNow } from '../../shared/kernel/clock';

export const handler = route(bookingRoutes.cancelBooking, async ({ tenant, params, body, seal }) => ({
  body: bookingView(
    await cancelBooking(await getBooking(tenant, params.booking_number), 'PARTNER', body?.reason ?? null, seal(bookingView), tenantNow(tenant)),
  ),
}));
