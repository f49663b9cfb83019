import { inventoryStore } from '../catalog/inventory';
import { catalogScopes } from '../catalog/scopes';
import { checkSlot } from '../catalog/slots';
import { catalogStore } from '../catalog/store';
import { announceIfSoldOut } from '../catalog/unavailable';
import { dataTable, type Seal, transact, unsealed } from '../db/client';
import { backoffMs, sleep } from '../db/retry';
import { recordEvent } from '../events/record';
import { tenantNow } from '../kernel/clock';
import { ApiError } from '../kernel/errors';
import { logger } from '../kernel/logger';
import { countEvent } from '../kernel/metrics';
import { toMinor } from '../kernel/money';
import type { Tenant } from '../kernel/tenant';
import type { QuoteRecord } from '../quotes/model';
import { getQuote } from '../quotes/read';
import { quoteStore } from '../quotes/store';
import { settlementLedger } from '../settlements/ledger';
import { publishEvents } from '../webhooks/queue';
import type { BookingRecord, CreateBookingInput } from './model';
import { notify } from './notify';
import { verifyPaymentConfirmation } from './payment';
import { findPaymentKey } from './payment-keys';
import { customerRefHash, newBookingNumber } from './rules';
import { bookingStore } from './store';

/**
 * Booking-number collisions and conflicting transactions are retried this many
 * times, and never past the invocation's deadline, before 409 booking.slot.contended.
 */
export const MAX_BOOKING_ATTEMPTS = 26;

const unavailable = (reason: string, message: string) => new ApiError('booking.slot.unavailable', message, { reason });
const alreadyBooked = (q: QuoteRecord, bookingNumber: string) =>
  new ApiError('booking.quote.already_booked', `Quote ${q.id} was already used by booking ${bookingNumber}.`, { booking_number: bookingNumber });
const expired = (q: QuoteRecord) =>
  new ApiError('booking.quote.expired', `Quote ${q.id} expired at ${q.expires_at}; take a new quote.`, { expires_at: q.expires_at });

async function quoteToBook(t: Tenant, quoteId: string): Promise<QuoteRecord> {
  try {
    return await getQuote(t, quoteId);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404)
      throw new ApiError('booking.quote.not_found', `Quote ${quoteId} does not exist in this environment.`, { quote_id: quoteId });
    throw e;
  }
}

/**
 * Books a quote, paid by the bank: verifies the signed payment confirmation,
 * re-validates the slot, then writes in one transaction the seat decrement
 * (conditional: never oversold), the quote's consumption (unexpired, unused),
 * the partner_reference reservation, the booking and its booking.confirmed
 * event. Status goes straight to CONFIRMED.
 */
export async function createBooking(
  t: Tenant,
  input: CreateBookingInput,
  seal: Seal<BookingRecord> = unsealed,
  now = tenantNow(t),
  deadline = Number.POSITIVE_INFINITY,
): Promise<BookingRecord> {
  try {
    const booking = await book(t, input, seal, now, deadline);
    countEvent('BookingsConfirmed', t.env);
    return booking;
  } catch (e) {
    // A refusal by a domain rule (quote, payment, seats, contention) is counted; its code goes in the log line.
    if (e instanceof ApiError) {
      countEvent('BookingsRefused', t.env);
      logger.info('booking refused', { code: e.code });
    }
    throw e;
  }
}

async function book(t: Tenant, input: CreateBookingInput, seal: Seal<BookingRecord>, now: Date, deadline: number): Promise<BookingRecord> {
  const quote = await quoteToBook(t, input.quote_id);
  if (quote.booking_number) throw alreadyBooked(quote, quote.booking_number);
  if (Date.parse(quote.expires_at) <= now.getTime()) throw expired(quote);
  if (input.travelers.length !== quote.travelers.length) {
    throw new ApiError('booking.travelers.mismatch', `The quote is for ${quote.travelers.length} traveler(s); ${input.travelers.length} were named.`, {
      travelers_quoted: quote.travelers.length,
      travelers_named: input.travelers.length,
    });
  }
  const { claims, kid } = await verifyPaymentConfirmation(input.payment_confirmation, (k) => findPaymentKey(t.partnerId, t.env, k));
  if (claims.quote_id !== quote.id)
    throw new ApiError('payment.quote.mismatch', 'The payment confirmation was signed for another quote.', {
      signed_quote_id: claims.quote_id,
      quote_id: quote.id,
    });
  if (toMinor(claims.amount.amount) !== toMinor(quote.net_amount.amount)) {
    throw new ApiError('payment.amount.mismatch', `The confirmed amount ${claims.amount.amount} MAD differs from the quote's ${quote.net_amount.amount} MAD.`, {
      confirmed: claims.amount,
      expected: quote.net_amount,
    });
  }

  // Re-validate the slot at confirmation: still sold, not closed, seats left.
  const scopes = await catalogScopes(t);
  const stored = await catalogStore.ratePack(scopes.content, quote.rate_pack_id);
  if (!stored?.adventure.active) throw unavailable('adventure_withdrawn', `${quote.adventure_title} is no longer sold.`);
  const check = checkSlot(stored.rate_pack, { date: quote.start_date, start_time: quote.start_time }, now);
  if (!check.ok) throw unavailable(check.reason, `This slot can no longer be booked (${check.reason.replaceAll('_', ' ')}).`);
  const slot = check.slot;
  const size = quote.travelers.length;
  // The capacity may have shrunk since the quote (a new catalog version): never sell past it.
  if (size > slot.capacity) throw unavailable('sold_out', `This slot now takes at most ${slot.capacity} travelers.`);
  const refKey = (await bookingStore.customerRefKey(t.partnerId, true))!;
  const nowIso = now.toISOString();

  for (let attempt = 0; ; attempt++) {
    const number = newBookingNumber();
    const adventure = { id: quote.adventure_id, slug: quote.adventure_slug, title: quote.adventure_title };
    // The booking's line goes to the settlement of this month, or of the next open one if the month is closing or was closed early
    // (read before each attempt; the settlement itself is never in the booking's transaction).
    const ledger = await settlementLedger.confirmed(
      {
        booking_number: number,
        partner_id: t.partnerId,
        env: t.env,
        partner_reference: input.partner_reference,
        travel_date: quote.start_date,
        created_at: nowIso,
        adventure,
        net_amount: quote.net_amount,
      },
      now,
    );
    const booking: BookingRecord = {
      booking_number: number,
      partner_id: t.partnerId,
      env: t.env,
      partner_reference: input.partner_reference,
      customer_ref_hash: customerRefHash(refKey, input.customer_reference),
      status: 'CONFIRMED',
      quote_id: quote.id,
      inventory: quote.inventory,
      adventure,
      rate_pack: { id: quote.rate_pack_id, name: quote.rate_pack_name, booking_mode: quote.booking_mode },
      travel_date: quote.start_date,
      start_time: quote.start_time,
      starts_at: quote.starts_at,
      contact: input.contact,
      travelers: quote.travelers.map((tr, i) => ({
        first_name: input.travelers[i]!.first_name,
        last_name: input.travelers[i]!.last_name,
        age: tr.age,
        age_bracket: tr.age_bracket,
        price: tr.price,
      })),
      net_amount: quote.net_amount,
      cancellation_policy: quote.cancellation_policy,
      payment: { payment_reference: claims.payment_reference, paid_at: claims.paid_at, amount: claims.amount, kid },
      created_at: nowIso,
      updated_at: nowIso,
      settlement_period: ledger.period,
    };
    const event = recordEvent(
      t.partnerId,
      t.env,
      'booking.confirmed',
      {
        booking_number: number,
        partner_reference: booking.partner_reference,
        status: 'CONFIRMED',
        travel_date: booking.travel_date,
        start_time: booking.start_time,
        quote_id: quote.id,
        adventure_slug: quote.adventure_slug,
      },
      now,
    );
    const cancelled = await transact(
      dataTable.client,
      {
        seat: inventoryStore.takeSeats(quote.inventory, quote.rate_pack_id, slot, size, slot.capacity),
        quote: quoteStore.consume(quote.id, number, now),
        reference: bookingStore.reserveReference(t.partnerId, t.env, input.partner_reference, number),
        booking: bookingStore.put(booking),
        row: bookingStore.listRow(booking),
        ...ledger.items,
      },
      [event.item],
      seal.items(booking),
    );
    if (!cancelled) {
      // Sent before answering (a Lambda is frozen once it has responded), side by side: the fan-out nudge,
      // the confirmation e-mail, and the sell-out announcement if this booking took the slot's last seat.
      const soldOut = announceIfSoldOut(
        {
          inventory: quote.inventory,
          env: t.env,
          partnerId: t.partnerId,
          adventure: { id: quote.adventure_id, slug: quote.adventure_slug },
          ratePackId: quote.rate_pack_id,
          slot,
          capacity: slot.capacity,
        },
        now,
      ).catch((e: Error) => logger.warn('sell-out announcement failed', { error: e.message, rate_pack_id: quote.rate_pack_id }));
      await Promise.all([publishEvents([event]), notify(booking, 'confirmed'), soldOut]);
      return booking;
    }
    if (cancelled.failed('quote')) {
      const q = await getQuote(t, quote.id);
      throw q.booking_number ? alreadyBooked(quote, q.booking_number) : expired(quote);
    }
    if (cancelled.failed('reference')) {
      throw new ApiError(
        'booking.partner_reference.duplicate',
        `partner_reference '${input.partner_reference}' is already used by another booking in this environment.`,
        {
          partner_reference: input.partner_reference,
        },
      );
    }
    if (cancelled.failed('seat')) {
      const row = await inventoryStore.get(quote.inventory, quote.rate_pack_id, slot);
      if (row.closed) throw unavailable('slot_closed', 'The operator has closed this slot.');
      throw unavailable('sold_out', `Only ${Math.max(0, slot.capacity - row.sold)} place(s) are left for this slot; the quote was for ${size}.`);
    }
    // A booking number collision or a conflicting concurrent transaction (on the slot's seats): try again, within bounds.
    if (!cancelled.failed('booking') && !cancelled.failed('line') && !cancelled.conflict)
      throw new Error(`booking was cancelled (${cancelled.codes.join(', ')})`);
    logger.info('booking retried', { booking_retry: true, attempt: attempt + 1, conflict: cancelled.conflict });
    const wait = backoffMs(attempt);
    if (attempt + 1 >= MAX_BOOKING_ATTEMPTS || Date.now() + wait >= deadline) {
      throw new ApiError('booking.slot.contended', 'This slot is taking many bookings right now; retry in a moment with the same Idempotency-Key.', undefined, {
        'retry-after': '1',
      });
    }
    await sleep(wait);
  }
}
