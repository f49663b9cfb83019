import { cancelBooking } from '../../shared/bookings/cancel';
import { getBooking } from '../../shared/bookings/read';
import { bookingRoutes } from '../../shared/bookings/routes';
import { bookingView } from '../../shared/bookings/views';
import { route } from '../../shared/http/route';
import { tenantNow } from '../../shared/kernel/clock';

/** Sandbox test helper: the service cancels the booking, with a full refund. */
export const handler = route(bookingRoutes.serviceCancelBookingTestHelper, async ({ tenant, params, body, seal }) => ({
  body: bookingView(
    await cancelBooking(
      await getBooking(tenant, params.booking_number),
      'SERVICE',
      body?.reason ?? 'service cancellation (test helper)',
      seal(bookingView),
      tenantNow(tenant),
    ),
  ),
}));
