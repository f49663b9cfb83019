import { randomBytes } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '../aws';
import { dataTableName } from '../config';
import { clean, queryPage } from '../db';
import { ApiError, notFound } from '../errors';
import { eventPut } from '../events/record';
import type { Principal } from '../http/context';
import { logger } from '../logger';
import { operatorFallbackEmail, sendMail } from '../mail';
import { money, toMinor, type Money } from '../money';
import { catalogRepository, inventoryKey, inventoryRepository } from '../catalog/repository';
import { scopesFor } from '../catalog/service';
import { checkSlot, slotKey } from '../catalog/slots';
import { addDays, localDate } from '../catalog/time';
import { getQuote, type QuoteRecord } from '../quotes/service';
import { verifyPaymentConfirmation } from './payment';
import { publishEvents } from '../webhooks/pipeline';
import { findPaymentKey } from './payment-keys';
import { customerRefHash, initials, newBookingNumber, refundPreview, type PolicyRule } from './rules';

type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];
export type BookingStatus = 'CONFIRMED' | 'CANCELLED' | 'COMPLETED';

export interface BookingRecord {
  booking_number: string;
  partner_id: string;
  env: 'live' | 'test';
  partner_reference: string;
  customer_ref_hash: string;
  status: BookingStatus;
  quote_id: string;
  inventory: string;
  adventure: { id: string; slug: string; title: string };
  rate_pack: { id: string; name: string; booking_mode: string };
  travel_date: string;
  start_time: string | null;
  starts_at: string;
  contact: { first_name: string; last_name: string; email: string; phone: string };
  travelers: { first_name: string; last_name: string; age: number; age_bracket: QuoteRecord['travelers'][number]['age_bracket']; price: Money }[];
  net_amount: Money;
  cancellation_policy: { code: string; description: string; rules: PolicyRule[] };
  payment: { payment_reference: string; paid_at: string; amount: Money; kid: string };
  created_at: string;
  updated_at: string;
  cancellation?: { cancelled_at: string; cancelled_by: 'PARTNER' | 'SERVICE'; reason: string | null; refund_amount: Money; fee_amount: Money; refund_percent: number; policy_code: string };
  completed_at?: string;
}

export interface CreateBookingInput {
  quote_id: string;
  partner_reference: string;
  customer_reference: string;
  contact: { first_name: string; last_name: string; email: string; phone: string };
  travelers: { first_name: string; last_name: string }[];
  payment_confirmation: string;
}

const T = () => dataTableName();
const bookingKey = (n: string) => ({ pk: `BOOKING#${n}`, sk: 'BOOKING' });
const partnerRefKey = (p: string, env: string, ref: string) => ({ pk: `PREF#${p}#${env}#${ref}`, sk: 'PREF' });

/** The partner's key for pseudonymizing customer references, created on first use. */
async function customerRefKey(partnerId: string, create: boolean): Promise<Buffer | undefined> {
  const Key = { pk: `TENANT#${partnerId}`, sk: 'CUSTOMER_REF_KEY' };
  const got = await ddb.send(new GetCommand({ TableName: T(), Key, ConsistentRead: true }));
  if (got.Item) return Buffer.from(got.Item.key as string, 'base64');
  if (!create) return undefined;
  try {
    await ddb.send(new PutCommand({ TableName: T(), Item: { ...Key, key: randomBytes(32).toString('base64'), created_at: new Date().toISOString() }, ConditionExpression: 'attribute_not_exists(pk)' }));
  } catch (e) {
    if ((e as Error).name !== 'ConditionalCheckFailedException') throw e;
  }
  return customerRefKey(partnerId, false);
}

const unavailable = (reason: string, message: string) => new ApiError('booking.slot.unavailable', message, { reason });

async function notify(b: BookingRecord, kind: 'confirmed' | 'cancelled') {
  const test = b.env === 'test';
  const prefix = test ? '[TEST] ' : '';
  const when = `${b.travel_date}${b.start_time ? ` at ${b.start_time}` : ''}`;
  const mails = [
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
  // The operator hears of production bookings only, never of sandbox ones.
  if (!test) {
    mails.push({
      to: operatorFallbackEmail(),
      subject: `Booking ${b.booking_number} ${kind}: ${b.adventure.title}, ${when}`,
      text: `${b.travelers.length} traveler(s); rate pack ${b.rate_pack.name}; lead ${b.contact.first_name} ${b.contact.last_name}, ${b.contact.phone}.`,
    });
  }
  const results = await Promise.allSettled(mails.map(sendMail));
  for (const r of results) if (r.status === 'rejected') logger.error('e-mail not sent', { booking_number: b.booking_number, kind, error: (r.reason as Error).message });
}

function transactionReasons(e: unknown): string[] | undefined {
  return e instanceof TransactionCanceledException ? (e.CancellationReasons ?? []).map((r) => r.Code ?? 'None') : undefined;
}

const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 10 * 2 ** attempt)));

/**
 * Books a quote, paid by the bank: verifies the signed payment confirmation,
 * re-validates the slot, then writes in one transaction the seat decrement
 * (conditional: never oversold), the quote's consumption (unexpired, unused),
 * the partner_reference reservation, the booking and its booking.confirmed
 * event. Status goes straight to CONFIRMED.
 */
export async function createBooking(p: Principal, input: CreateBookingInput, now = new Date()): Promise<BookingRecord> {
  let quote: QuoteRecord;
  try {
    quote = await getQuote(p, input.quote_id);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) throw new ApiError('booking.quote.not_found', `Quote ${input.quote_id} does not exist in this environment.`, { quote_id: input.quote_id });
    throw e;
  }
  if (quote.booking_number) throw new ApiError('booking.quote.already_booked', `Quote ${quote.id} was already used by booking ${quote.booking_number}.`, { booking_number: quote.booking_number });
  if (Date.parse(quote.expires_at) <= now.getTime()) throw new ApiError('booking.quote.expired', `Quote ${quote.id} expired at ${quote.expires_at}; take a new quote.`, { expires_at: quote.expires_at });
  if (input.travelers.length !== quote.travelers.length) {
    throw new ApiError('booking.travelers.mismatch', `The quote is for ${quote.travelers.length} traveler(s); ${input.travelers.length} were named.`, {
      expected: quote.travelers.length,
      received: input.travelers.length,
    });
  }
  const { claims, kid } = await verifyPaymentConfirmation(input.payment_confirmation, (kid) => findPaymentKey(p.partnerId, p.env, kid));
  if (claims.quote_id !== quote.id) throw new ApiError('payment.quote.mismatch', 'The payment confirmation was signed for another quote.', { signed_quote_id: claims.quote_id, quote_id: quote.id });
  if (toMinor(claims.amount.amount) !== toMinor(quote.net_amount.amount)) {
    throw new ApiError('payment.amount.mismatch', `The confirmed amount ${claims.amount.amount} MAD differs from the quote's ${quote.net_amount.amount} MAD.`, {
      confirmed: claims.amount,
      expected: quote.net_amount,
    });
  }

  // Re-validate the slot at confirmation: still sold, not closed, seats left.
  const scopes = await scopesFor(p);
  const stored = await catalogRepository.ratePack(scopes.content, quote.rate_pack_id);
  if (!stored || !stored.adventure.active) throw unavailable('adventure_withdrawn', `${quote.adventure_title} is no longer sold.`);
  const check = checkSlot(stored.rate_pack, { date: quote.start_date, start_time: quote.start_time }, now);
  if (!check.ok) throw unavailable(check.reason, `This slot can no longer be booked (${check.reason.replaceAll('_', ' ')}).`);
  const capacity = check.slot.capacity;
  const size = quote.travelers.length;
  // The capacity may have shrunk since the quote (a new catalog version): never sell past it.
  if (size > capacity) throw unavailable('sold_out', `This slot now takes at most ${capacity} travelers.`);
  const key = slotKey(check.slot);
  const refKey = (await customerRefKey(p.partnerId, true))!;
  const nowIso = now.toISOString();

  for (let attempt = 0; ; attempt++) {
    const number = newBookingNumber();
    const booking: BookingRecord = {
      booking_number: number,
      partner_id: p.partnerId,
      env: p.env,
      partner_reference: input.partner_reference,
      customer_ref_hash: customerRefHash(refKey, input.customer_reference),
      status: 'CONFIRMED',
      quote_id: quote.id,
      inventory: quote.inventory,
      adventure: { id: quote.adventure_id, slug: quote.adventure_slug, title: quote.adventure_title },
      rate_pack: { id: quote.rate_pack_id, name: quote.rate_pack_name, booking_mode: quote.booking_mode },
      travel_date: quote.start_date,
      start_time: quote.start_time,
      starts_at: quote.starts_at,
      contact: input.contact,
      travelers: quote.travelers.map((t, i) => ({ first_name: input.travelers[i]!.first_name, last_name: input.travelers[i]!.last_name, age: t.age, age_bracket: t.age_bracket, price: t.price })),
      net_amount: quote.net_amount,
      cancellation_policy: quote.cancellation_policy as BookingRecord['cancellation_policy'],
      payment: { payment_reference: claims.payment_reference, paid_at: claims.paid_at, amount: claims.amount, kid },
      created_at: nowIso,
      updated_at: nowIso,
    };
    const event = eventPut(p.partnerId, p.env, 'booking.confirmed', {
      booking_number: number,
      partner_reference: booking.partner_reference,
      status: 'CONFIRMED',
      travel_date: booking.travel_date,
      start_time: booking.start_time,
      quote_id: quote.id,
      adventure_slug: quote.adventure_slug,
    }, now);
    const items: TransactItem[] = [
      {
        Update: {
          TableName: T(),
          Key: { pk: inventoryKey(quote.inventory, quote.rate_pack_id), sk: key },
          UpdateExpression: 'SET sold = if_not_exists(sold, :zero) + :n',
          ConditionExpression: '(attribute_not_exists(sold) OR sold <= :max) AND (attribute_not_exists(closed) OR closed = :f)',
          ExpressionAttributeValues: { ':zero': 0, ':n': size, ':max': capacity - size, ':f': false },
        },
      },
      {
        Update: {
          TableName: T(),
          Key: { pk: `QUOTE#${quote.id}`, sk: 'QUOTE' },
          UpdateExpression: 'SET booking_number = :b',
          ConditionExpression: 'attribute_not_exists(booking_number) AND expires_at > :now',
          ExpressionAttributeValues: { ':b': number, ':now': nowIso },
        },
      },
      { Put: { TableName: T(), Item: { ...partnerRefKey(p.partnerId, p.env, input.partner_reference), booking_number: number }, ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Put: {
          TableName: T(),
          Item: {
            ...bookingKey(number),
            type: 'booking',
            ...booking,
            gsi1pk: `BOOKINGS#${p.partnerId}#${p.env}`,
            gsi1sk: `${nowIso}#${number}`,
            // Sparse: only CONFIRMED bookings, by travel date, for the completion job.
            gsi2pk: `BKDATE#${booking.travel_date}`,
            gsi2sk: `${nowIso}#${number}`,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      { Put: event.put },
    ];
    try {
      await ddb.send(new TransactWriteCommand({ TransactItems: items }));
      await publishEvents([event.ref]);
      // Sent before answering: a Lambda is frozen once it has responded.
      await notify(booking, 'confirmed');
      return booking;
    } catch (e) {
      const reasons = transactionReasons(e);
      if (!reasons) throw e;
      const [seat, quoteR, ref, bookingR] = reasons;
      if (quoteR === 'ConditionalCheckFailed') {
        const q = await getQuote(p, quote.id);
        if (q.booking_number) throw new ApiError('booking.quote.already_booked', `Quote ${quote.id} was already used by booking ${q.booking_number}.`, { booking_number: q.booking_number });
        throw new ApiError('booking.quote.expired', `Quote ${quote.id} expired at ${quote.expires_at}; take a new quote.`, { expires_at: quote.expires_at });
      }
      if (ref === 'ConditionalCheckFailed') {
        throw new ApiError('booking.partner_reference.duplicate', `partner_reference '${input.partner_reference}' is already used by another booking in this environment.`, {
          partner_reference: input.partner_reference,
        });
      }
      if (seat === 'ConditionalCheckFailed') {
        const row = await inventoryRepository.get(quote.inventory, quote.rate_pack_id, key);
        if (row.closed) throw unavailable('slot_closed', 'The operator has closed this slot.');
        throw unavailable('sold_out', `Only ${Math.max(0, capacity - row.sold)} place(s) are left for this slot; the quote was for ${size}.`);
      }
      // A booking number collision or a conflicting concurrent transaction: try again, within bounds.
      if (bookingR === 'ConditionalCheckFailed' || reasons.includes('TransactionConflict')) {
        if (attempt >= 25) {
          throw new ApiError('booking.slot.contended', 'This slot is taking many bookings right now; retry in a moment with the same Idempotency-Key.', undefined, { 'retry-after': '1' });
        }
        await backoff(attempt);
        continue;
      }
      throw e;
    }
  }
}

/** Fields shown both in the list and in the detail. */
function bookingCore(b: BookingRecord) {
  return {
    booking_number: b.booking_number,
    partner_reference: b.partner_reference,
    status: b.status,
    test_mode: b.env === 'test',
    quote_id: b.quote_id,
    travel_date: b.travel_date,
    start_time: b.start_time,
    net_amount: b.net_amount,
    created_at: b.created_at,
  };
}

export function bookingView(b: BookingRecord) {
  return {
    ...bookingCore(b),
    adventure: b.adventure,
    rate_pack: b.rate_pack,
    contact: b.contact,
    travelers: b.travelers,
    cancellation_policy: b.cancellation_policy,
    payment: { payment_reference: b.payment.payment_reference, paid_at: b.payment.paid_at, amount: b.payment.amount },
    cancellation: b.cancellation ?? null,
    updated_at: b.updated_at,
    completed_at: b.completed_at ?? null,
  };
}

export function bookingListView(b: BookingRecord) {
  return {
    ...bookingCore(b),
    adventure_slug: b.adventure.slug,
    travelers: b.travelers.map((t) => ({ initials: initials(t.first_name, t.last_name) })),
  };
}

async function loadBooking(number: string): Promise<BookingRecord | undefined> {
  const r = await ddb.send(new GetCommand({ TableName: T(), Key: bookingKey(number), ConsistentRead: true }));
  return r.Item ? clean<BookingRecord>(r.Item) : undefined;
}

export async function getBooking(p: Principal, number: string): Promise<BookingRecord> {
  const b = await loadBooking(number);
  if (!b || b.partner_id !== p.partnerId || b.env !== p.env) throw notFound('Booking', number);
  return b;
}

export interface BookingListQuery {
  limit: number;
  status?: BookingStatus[];
  customer_reference?: string;
  created_from?: string;
  created_to?: string;
}

export async function listBookings(p: Principal, q: BookingListQuery, after?: string) {
  const gsi1pk = `BOOKINGS#${p.partnerId}#${p.env}`;
  const names: Record<string, string> = {};
  // Instants normalised to the stored form (ms precision, Z), so the window is exact.
  const from = q.created_from ? new Date(q.created_from).toISOString() : '0000';
  const to = q.created_to ? new Date(q.created_to).toISOString() : '9999';
  if (from > to) throw new ApiError('validation.field.invalid', 'created_from must not be after created_to.', { errors: [{ field: 'created_from', location: 'query', message: 'after created_to', expected: `at most ${to}` }] });
  const values: Record<string, unknown> = { ':p': gsi1pk, ':from': from, ':to': `${to}#~` };
  const filters: string[] = [];
  if (q.status?.length) {
    names['#s'] = 'status';
    filters.push(`#s IN (${q.status.map((s, i) => ((values[`:s${i}`] = s), `:s${i}`)).join(', ')})`);
  }
  if (q.customer_reference !== undefined) {
    const key = await customerRefKey(p.partnerId, false);
    if (!key) return { items: [], next: undefined };
    values[':h'] = customerRefHash(key, q.customer_reference);
    filters.push('customer_ref_hash = :h');
  }
  const { items, hasMore } = await queryPage(
    {
      TableName: T(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :p AND gsi1sk BETWEEN :from AND :to',
      ExpressionAttributeValues: values,
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
      ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
      ScanIndexForward: false,
    },
    q.limit,
    after ? { gsi1pk, gsi1sk: after, ...bookingKey(after.split('#')[1]!) } : undefined,
  );
  return { items: items.map((i) => clean<BookingRecord>(i)), next: hasMore ? (items.at(-1)!.gsi1sk as string) : undefined };
}

export function cancellationQuoteOf(b: BookingRecord, now = new Date()) {
  const preview = refundPreview(toMinor(b.net_amount.amount), b.cancellation_policy.rules, new Date(b.starts_at), now);
  return {
    booking_number: b.booking_number,
    status: b.status,
    cancellable: b.status === 'CONFIRMED',
    currency: 'MAD' as const,
    amount_paid: b.net_amount,
    refundable_amount: money(preview.refundable),
    fee_amount: money(preview.fee),
    refund_percent: preview.refund_percent,
    hours_before_start: preview.hours_before_start,
    policy: b.cancellation_policy,
    applied_rule: preview.applied_rule,
    valid_until: preview.valid_until?.toISOString() ?? null,
    computed_at: now.toISOString(),
  };
}

/**
 * Cancels a CONFIRMED booking: in one transaction the status change with its
 * refund record, the seats released and the booking.cancelled event. The
 * partner gets the policy's refund; a cancellation by the service refunds in full.
 */
export async function cancelBooking(b: BookingRecord, by: 'PARTNER' | 'SERVICE', reason: string | null, now = new Date(), attempt = 0): Promise<BookingRecord> {
  if (b.status !== 'CONFIRMED') throw new ApiError('booking.not_cancellable', `Booking ${b.booking_number} is ${b.status} and cannot be cancelled.`, { status: b.status });
  // Once the adventure has started the booking is being fulfilled: it completes, it is not cancelled.
  if (by === 'PARTNER' && Date.parse(b.starts_at) <= now.getTime()) {
    throw new ApiError('booking.not_cancellable', `Booking ${b.booking_number} started at ${b.starts_at} and can no longer be cancelled.`, { status: b.status, starts_at: b.starts_at });
  }
  const amount = toMinor(b.net_amount.amount);
  const preview = refundPreview(amount, b.cancellation_policy.rules, new Date(b.starts_at), now);
  const refund = by === 'SERVICE' ? amount : preview.refundable;
  const cancellation: NonNullable<BookingRecord['cancellation']> = {
    cancelled_at: now.toISOString(),
    cancelled_by: by,
    reason,
    refund_amount: money(refund),
    fee_amount: money(amount - refund),
    refund_percent: by === 'SERVICE' ? 100 : preview.refund_percent,
    policy_code: b.cancellation_policy.code,
  };
  const event = eventPut(b.partner_id, b.env, 'booking.cancelled', {
    booking_number: b.booking_number,
    partner_reference: b.partner_reference,
    status: 'CANCELLED',
    travel_date: b.travel_date,
    cancelled_by: by,
    refund_amount: cancellation.refund_amount,
    cancelled_at: cancellation.cancelled_at,
  }, now);
  try {
    await ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: T(),
              Key: bookingKey(b.booking_number),
              UpdateExpression: 'SET #s = :c, cancellation = :x, updated_at = :now REMOVE gsi2pk, gsi2sk',
              ConditionExpression: '#s = :confirmed',
              ExpressionAttributeNames: { '#s': 'status' },
              ExpressionAttributeValues: { ':c': 'CANCELLED', ':x': cancellation, ':now': now.toISOString(), ':confirmed': 'CONFIRMED' },
            },
          },
          {
            Update: {
              TableName: T(),
              Key: { pk: inventoryKey(b.inventory, b.rate_pack.id), sk: slotKey({ date: b.travel_date, start_time: b.start_time }) },
              UpdateExpression: 'SET sold = sold - :n',
              ConditionExpression: 'sold >= :n',
              ExpressionAttributeValues: { ':n': b.travelers.length },
            },
          },
          { Put: event.put },
        ],
      }),
    );
  } catch (e) {
    const reasons = transactionReasons(e);
    if (reasons?.[0] === 'ConditionalCheckFailed' || reasons?.includes('TransactionConflict')) {
      const fresh = await loadBooking(b.booking_number);
      if (fresh && fresh.status !== 'CONFIRMED') throw new ApiError('booking.not_cancellable', `Booking ${b.booking_number} is ${fresh.status} and cannot be cancelled.`, { status: fresh.status });
      if (fresh && attempt < 10) {
        await backoff(attempt);
        return cancelBooking(fresh, by, reason, now, attempt + 1);
      }
      throw new ApiError('booking.slot.contended', 'The booking is being changed concurrently; retry in a moment with the same Idempotency-Key.', undefined, { 'retry-after': '1' });
    }
    throw e;
  }
  await publishEvents([event.ref]);
  const cancelled: BookingRecord = { ...b, status: 'CANCELLED', cancellation, updated_at: now.toISOString() };
  await notify(cancelled, 'cancelled');
  return cancelled;
}

export async function cancelByService(number: string, reason: string | null, now = new Date()) {
  const b = await loadBooking(number);
  if (!b) throw notFound('Booking', number);
  return cancelBooking(b, 'SERVICE', reason, now);
}

/**
 * Moves CONFIRMED bookings whose travel date has passed to COMPLETED, each
 * with its booking.completed event in the same transaction. Looks back 7
 * days from `throughDate` so a missed run catches up.
 */
export async function completeBookings(throughDate: string, progress: (line: string) => void = () => undefined, now = new Date()) {
  if (throughDate >= localDate(now)) throw new ApiError('validation.field.invalid', `Only travel dates before today (${localDate(now)}, Morocco time) can be completed.`, { errors: [{ field: 'date', location: 'body', message: 'not in the past', expected: `before ${localDate(now)}` }] });
  let completed = 0;
  for (let d = addDays(throughDate, -7); d <= throughDate; d = addDays(d, 1)) {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const r = await ddb.send(
        new QueryCommand({ TableName: T(), IndexName: 'gsi2', KeyConditionExpression: 'gsi2pk = :p', ExpressionAttributeValues: { ':p': `BKDATE#${d}` }, ExclusiveStartKey }),
      );
      for (const item of r.Items ?? []) {
        const b = clean<BookingRecord>(item);
        if (b.status !== 'CONFIRMED') continue;
        const event = eventPut(b.partner_id, b.env, 'booking.completed', {
          booking_number: b.booking_number,
          partner_reference: b.partner_reference,
          status: 'COMPLETED',
          travel_date: b.travel_date,
          completed_at: now.toISOString(),
        }, now);
        try {
          await ddb.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Update: {
                    TableName: T(),
                    Key: bookingKey(b.booking_number),
                    UpdateExpression: 'SET #s = :done, completed_at = :now, updated_at = :now REMOVE gsi2pk, gsi2sk',
                    ConditionExpression: '#s = :confirmed',
                    ExpressionAttributeNames: { '#s': 'status' },
                    ExpressionAttributeValues: { ':done': 'COMPLETED', ':now': now.toISOString(), ':confirmed': 'CONFIRMED' },
                  },
                },
                { Put: event.put },
              ],
            }),
          );
          completed++;
          await publishEvents([event.ref]);
        } catch (e) {
          if (!transactionReasons(e)) throw e; // cancelled or completed meanwhile
        }
      }
      ExclusiveStartKey = r.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    progress(`travel date ${d}: ${completed} completed so far`);
  }
  return { through_date: throughDate, completed };
}

export const yesterdayInMorocco = (now = new Date()) => addDays(localDate(now), -1);
