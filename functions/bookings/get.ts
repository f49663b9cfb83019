import { getBooking } from '../../shared/bookings/read';
import { bookingRoutes } from '../../shared/bookings/routes';
import { bookingView } from '../../shared/bookings/views';
import { route } from '../../shared/http/route';

export const handler = route(bookingRoutes.getBooking, async ({ tenant, params }) => ({ body: bookingView(await getBooking(tenant, params.booking_number)) }));
