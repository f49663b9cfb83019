import { cancellationQuoteOf, getBooking } from '../../shared/bookings/service';
import { route } from '../../shared/http/route';
import { ROUTES } from '../../shared/routes';

export const handler = route(ROUTES.getCancellationQuote, async ({ principal, params }) => ({
  body: cancellationQuoteOf(await getBooking(principal, params.booking_number)),
}));
