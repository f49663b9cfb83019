import { bookingView, createBooking } from '../../shared/bookings/service';
import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';

export const handler = route(ROUTES.createBooking, async ({ principal, body }) => ({ status: 201, body: bookingView(await createBooking(principal, body)) }));
