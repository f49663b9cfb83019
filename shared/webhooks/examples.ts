import { randomUUID } from 'node:crypto';
import type { EventData } from '../events/payloads';
import type { EventType } from '../events/types';
import { addDays, localDate } from '../kernel/time';

/**
 * A realistic `data` for each event type, with exactly the fields the real
 * event carries (test/unit/webhook-examples.test.ts checks them against
 * EVENT_PAYLOADS, which the recording code is typed by). POST
 * /webhooks/{id}/test sends these, with `test: true` in the envelope.
 */
export function exampleData<T extends EventType>(type: T, now = new Date()): EventData<T> {
  const today = localDate(now);
  const travel = addDays(today, 14);
  const iso = now.toISOString();
  const examples: { [K in EventType]: () => EventData<K> } = {
    'booking.confirmed': () => ({
      booking_number: 'PTB-7K3M-Q9XD',
      partner_reference: 'BANK-TEST-0001',
      status: 'CONFIRMED',
      travel_date: travel,
      start_time: '09:00',
      quote_id: randomUUID(),
      adventure_slug: 'agafay-desert-sunset-camel-ride',
    }),
    'booking.cancelled': () => ({
      booking_number: 'PTB-7K3M-Q9XD',
      partner_reference: 'BANK-TEST-0001',
      status: 'CANCELLED',
      travel_date: travel,
      cancelled_by: 'PARTNER',
      refund_amount: { amount: '450.00', currency: 'MAD' },
      cancelled_at: iso,
    }),
    'booking.completed': () => ({
      booking_number: 'PTB-7K3M-Q9XD',
      partner_reference: 'BANK-TEST-0001',
      status: 'COMPLETED',
      travel_date: addDays(today, -1),
      completed_at: iso,
    }),
    'settlement.issued': () => ({
      settlement_id: randomUUID(),
      number: 'TEST-PTS-000001',
      status: 'ISSUED',
      period_start: `${previousMonth(today)}-01`,
      period_end: addDays(`${today.slice(0, 7)}-01`, -1),
      total_due: { amount: '12450.00', currency: 'MAD' },
      issue_date: today,
      due_date: addDays(today, 15),
      booking_count: 17,
      line_count: 18,
    }),
    'settlement.paid': () => ({
      settlement_id: randomUUID(),
      number: 'TEST-PTS-000001',
      status: 'PAID',
      paid_at: iso,
      transfer_reference: 'TRF-2026-000123',
      amount_received: { amount: '12450.00', currency: 'MAD' },
    }),
    'review.moderated': () => ({
      review_id: randomUUID(),
      reviewable_type: 'EXPERIENCE',
      reviewable_id: randomUUID(),
      booking_id: randomUUID(),
      booking_number: 'PTB-7K3M-Q9XD',
      partner_reference: 'BANK-TEST-0001',
      action: 'HIDDEN',
      moderated_at: iso,
    }),
    'adventure.unavailable': () => ({
      adventure_id: randomUUID(),
      adventure_slug: 'agafay-desert-sunset-camel-ride',
      rate_pack_id: randomUUID(),
      date: travel,
      start_time: '09:00',
      reason: 'SOLD_OUT',
      quote_ids: [randomUUID()],
      quote_count: 1,
    }),
  };
  return examples[type]() as EventData<T>;
}

/** YYYY-MM of the month before `day`. */
function previousMonth(day: string): string {
  const [y, m] = day.split('-').map(Number) as [number, number];
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}
