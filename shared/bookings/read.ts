import { ApiError, notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import type { BookingStatus } from './model';
import { customerRefHash } from './rules';
import { bookingStore } from './store';

export async function getBooking(t: Tenant, bookingNumber: string) {
  const b = await bookingStore.get(bookingNumber);
  if (!b || b.partner_id !== t.partnerId || b.env !== t.env) throw notFound('Booking', bookingNumber);
  return b;
}

export interface BookingListQuery {
  limit: number;
  status?: BookingStatus[];
  customer_reference?: string;
  created_from?: string;
  created_to?: string;
}

/** The tenant's bookings, most recent first, with the filters of GET /bookings. */
export async function listBookings(t: Tenant, q: BookingListQuery, after?: string) {
  // Instants normalised to the stored form (ms precision, Z), so the window is exact.
  const from = q.created_from ? new Date(q.created_from).toISOString() : '0000';
  const to = q.created_to ? new Date(q.created_to).toISOString() : '9999';
  if (from > to) {
    throw new ApiError('validation.field.invalid', 'created_from must not be after created_to.', {
      errors: [{ field: 'created_from', location: 'query', message: 'after created_to', expected: `at most ${to}` }],
    });
  }
  let hash: string | undefined;
  if (q.customer_reference !== undefined) {
    const key = await bookingStore.customerRefKey(t.partnerId, false);
    if (!key) return { items: [], next: undefined };
    hash = customerRefHash(key, q.customer_reference);
  }
  return bookingStore.listForTenant(t.partnerId, t.env, { limit: q.limit, status: q.status, customerRefHash: hash, createdFrom: from, createdTo: to }, after);
}
