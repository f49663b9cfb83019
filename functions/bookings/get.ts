import { bookingView, getBooking } from '../../shared/bookings/service';
import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';

export const handler = route(ROUTES.getBooking, async ({ principal, params }) => ({ body: bookingView(await getBooking(principal, params.booking_number)) }));
