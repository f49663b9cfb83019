import { describe, expect, it } from 'vitest';
import type { BookingRecord } from '../../shared/bookings/model';
import { CancellationQuote } from '../../shared/bookings/schemas';
import { cancellationQuoteView } from '../../shared/bookings/views';

const now = new Date('2026-12-01T09:00:00Z');
const booking = (status: BookingRecord['status'], startsAt = '2026-12-10T09:00:00Z'): BookingRecord => ({
  booking_number: 'PTB-7K3M-Q9XD',
  partner_id: 'p',
  env: 'test',
  partner_reference: 'R-1',
  customer_ref_hash: 'h',
  status,
  quote_id: 'q',
  inventory: 'SANDBOX',
  adventure: { id: 'a', slug: 'a', title: 'A' },
  rate_pack: { id: 'r', name: 'Day', booking_mode: 'FLEXIBLE' },
  travel_date: startsAt.slice(0, 10),
  start_time: null,
  starts_at: startsAt,
  contact: { first_name: 'A', last_name: 'B', email: 'a@example.com', phone: '+212600000000' },
  travelers: [],
  net_amount: { amount: '1700.00', currency: 'MAD' },
  cancellation_policy: { code: 'FLEX', description: 'x', rules: [{ hours_before: 24, refund_percent: 100 }] },
  payment: { payment_reference: 'P', paid_at: now.toISOString(), amount: { amount: '1700.00', currency: 'MAD' }, kid: 'k' },
  created_at: now.toISOString(),
  updated_at: now.toISOString(),
});
const noRefundFigures = { refundable_amount: null, fee_amount: null, refund_percent: null, applied_rule: null, valid_until: null };

describe('the cancellation quote (GET /bookings/{n}/cancellation-quote)', () => {
  it('gives the refund figures of a booking that can be cancelled now', () => {
    const q = cancellationQuoteView(booking('CONFIRMED'), now);
    expect(q).toMatchObject({ cancellable: true, refundable_amount: { amount: '1700.00' }, fee_amount: { amount: '0.00' }, refund_percent: 100 });
    expect(q.valid_until).toBe('2026-12-09T09:00:00.000Z');
    expect(CancellationQuote.parse(q)).toEqual(q);
  });

  it('gives no refund figures when nothing can be cancelled: CANCELLED, COMPLETED, or started', () => {
    for (const b of [booking('CANCELLED'), booking('COMPLETED'), booking('CONFIRMED', '2026-11-30T09:00:00Z')]) {
      const q = cancellationQuoteView(b, now);
      expect(q, b.status).toMatchObject({ cancellable: false, amount_paid: { amount: '1700.00' }, ...noRefundFigures });
      expect(CancellationQuote.parse(q)).toEqual(q);
    }
  });
});
