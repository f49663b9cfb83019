import { getBooking } from '../../shared/bookings/read';
import { bookingRoutes } from '../../shared/bookings/routes';
import { cancellationQuoteView } from '../../shared/bookings/views';
import { route } from '../../shared/http/route';
import { tenantNow } from '../../shared/kernel/clock';

export const handler = route(bookingRoutes.getCancellationQuote, async ({ tenant, params }) => ({
  body: cancellationQuoteView(await getBooking(tenant, params.booking_number), tenantNow(tenant)),
}));
