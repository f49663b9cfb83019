import { deliver } from '../mail/deliver';
import { type Mail, operatorsEmail } from '../mail/send';
import type { BookingRecord } from './model';

/**
 * The traveler's confirmation or cancellation e-mail, and in production the
 * operator's notice. Sandbox subjects start with [TEST] and the operator never
 * hears of sandbox bookings. One SES refuses is counted and tried again later (deliver); it never undoes or
 * delays the booking.
 */
export async function notify(b: BookingRecord, kind: 'confirmed' | 'cancelled') {
  const test = b.env === 'test';
  const prefix = test ? '[TEST] ' : '';
  const when = `${b.travel_date}${b.start_time ? ` at ${b.start_time}` : ''}`;
  const mails: Mail[] = [
    {
      to: b.contact.email,
      subject:
        kind === 'confirmed'
          ? `${prefix}Booking ${b.booking_number} confirmed: ${b.adventure.title}`
          : `${prefix}Booking ${b.booking_number} cancelled: ${b.adventure.title}`,
      text: [
        `Dear ${b.contact.first_name} ${b.contact.last_name},`,
        '',
        kind === 'confirmed'
          ? `Your booking ${b.booking_number} for ${b.adventure.title} on ${when} is confirmed for ${b.travelers.length} traveler(s). Total paid: ${b.net_amount.amount} MAD.`
          : `Your booking ${b.booking_number} for ${b.adventure.title} on ${when} has been cancelled. Refund: ${b.cancellation?.refund_amount.amount ?? '0.00'} MAD.`,
        '',
        `Cancellation policy: ${b.cancellation_policy.description}`,
      ].join('\n'),
    },
  ];
  if (!test) {
    mails.push({
      to: operatorsEmail(),
      subject: `Booking ${b.booking_number} ${kind}: ${b.adventure.title}, ${when}`,
      text: `${b.travelers.length} traveler(s); rate pack ${b.rate_pack.name}; lead ${b.contact.first_name} ${b.contact.last_name}, ${b.contact.phone}.`,
    });
  }
  await deliver(mails, { partner_id: b.partner_id, environment: b.env, booking_number: b.booking_number, kind });
}
