import { completeNow } from '../../shared/bookings/complete';
import { getBooking } from '../../shared/bookings/read';
import { bookingRoutes } from '../../shared/bookings/routes';
import { bookingView } from '../../shared/bookings/views';
import { route } from '../../shared/http/route';
import { tenantNow } from '../../shared/kernel/clock';

/** Sandbox test helper: the booking travels now, whatever its date. */
export const handler = route(bookingRoutes.completeBookingTestHelper, async ({ tenant, params, seal }) => ({
  body: bookingView(await completeNow(await getBooking(tenant, params.booking_number), seal(bookingView), tenantNow(tenant))),
}));
