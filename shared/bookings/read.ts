import { ApiError, notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import type { BookingListRow, BookingStatus } from './model';
import { customerRefHash } from './rules';
import { bookingStore } from './store';
import { bookingListRow } from './views';

export async function getBooking(t: Tenant, bookingNumber: string) {
  const b = await bookingStore.get(bookingNumber);
  if (!b || b.partner_id !== t.partnerId || b.env !== t.env) throw notFound('Booking', bookingNumber);
  return b;
}

export interface BookingListQuery {
  limit: number;
  status?: BookingStatus[];
  customer_reference?: string;
  partner_reference?: string;
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
  if (q.partner_reference !== undefined) {
    // A partner_reference is unique per tenant: its reservation record names the booking, which the other filters then check.
    const number = after === undefined ? await bookingStore.numberOfReference(t.partnerId, t.env, q.partner_reference) : undefined;
    const b = number ? await bookingStore.get(number) : undefined;
    const row = b && b.partner_id === t.partnerId && b.env === t.env ? bookingListRow(b) : undefined;
    const match =
      row &&
      (!q.status?.length || q.status.includes(row.status)) &&
      row.created_at >= from &&
      row.created_at <= to &&
      (hash === undefined || row.customer_ref_hash === hash);
    return { items: match ? [row] : [], next: undefined };
  }
  const page = await bookingStore.listForTenant(
    t.partnerId,
    t.env,
    { limit: q.limit, status: q.status, customerRefHash: hash, createdFrom: from, createdTo: to },
    after,
  );
  return { ...page, items: await withTitles(page.items) };
}

/** Rows written before the list showed adventure titles take them from their bookings. */
async function withTitles(rows: BookingListRow[]): Promise<BookingListRow[]> {
  const missing = rows.filter((r) => r.adventure_title === undefined).map((r) => r.booking_number);
  if (!missing.length) return rows;
  const titles = await bookingStore.titles(missing);
  return rows.map((r) => (r.adventure_title === undefined ? { ...r, adventure_title: titles.get(r.booking_number) } : r));
}
