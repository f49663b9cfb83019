import { bookingView, cancelBooking, getBooking } from '../../shared/bookings/service';
import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';

export const handler = route(ROUTES.cancelBooking, async ({ principal, params, body }) => ({
  body: bookingView(await cancelBooking(await getBooking(principal, params.booking_number), 'PARTNER', body?.reason ?? null)),
}));
