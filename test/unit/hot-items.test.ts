import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { CompactSign, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { bookingKeys } from '../../shared/bookings/keys';
import type { BookingRecord } from '../../shared/bookings/model';
import { catalogKeys } from '../../shared/catalog/keys';
import type { TransactItem } from '../../shared/db/client';
import { addDays, localDate } from '../../shared/kernel/time';
import { quoteKeys } from '../../shared/quotes/keys';
import type { ReviewRecord } from '../../shared/reviews/model';
import { settlementKeys } from '../../shared/settlements/keys';
import { periodOf } from '../../shared/settlements/period';

/**
 * No item shared by a partner's unrelated writes (issue 25, part 1): the
 * transactions of two bookings by one partner on two slots, of two
 * cancellations, two completions, two reviews of one adventure, share no item.
 * In DynamoDB two transactions in flight on one item cancel each other
 * (TransactionConflict); only the seats of one slot may be shared (wanted:
 * they must never oversell). The bookings' transactions are the real ones,
 * built by the use cases against a mocked client and captured as sent.
 */
vi.mock('../../shared/db/retry', async (original) => ({ ...(await original<object>()), backoff: async () => undefined, sleep: async () => undefined }));
process.env.DATA_TABLE = 'data';
process.env.ACCESS_TABLE = 'access';

const ddb = mockClient(DynamoDBDocumentClient);
let sent: TransactItem[][] = [];
beforeEach(() => {
  ddb.reset();
  sent = [];
});
afterAll(() => ddb.restore());

/** The items' keys (table, pk, sk), whatever the action. */
const keysOf = (items: TransactItem[]) =>
  items.map((i) => {
    const a = (i.Put ?? i.Update ?? i.Delete ?? i.ConditionCheck)!;
    const k = ('Item' in a ? a.Item : a.Key) as Record<string, unknown>;
    return `${a.TableName}|${k.pk as string}|${k.sk as string}`;
  });
const shared = (a: TransactItem[], b: TransactItem[]) => keysOf(a).filter((k) => keysOf(b).includes(k));

/** The first transaction a use case sent (its retries send the same items again). */
async function firstSent(run: () => Promise<unknown>): Promise<TransactItem[]> {
  const start = sent.length;
  await run().catch(() => undefined);
  expect(sent.length).toBeGreaterThan(start);
  return sent[start]!;
}

/** Captures each transaction, then cancels it with ConditionalCheckFailed on item `failAt` (the use case then stops). */
function captureTransactions(failAt: number) {
  ddb.on(TransactWriteCommand).callsFake((input: { TransactItems: TransactItem[] }) => {
    sent.push(input.TransactItems);
    const reasons = input.TransactItems.map((_, i) => ({ Code: i === failAt ? 'ConditionalCheckFailed' : 'None' }));
    throw new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: reasons });
  });
}

const partnerId = randomUUID();
const ratePackId = randomUUID();
const adventureId = randomUUID();
const now = new Date();
const period = periodOf(now);
const policy = { code: 'FLEX', description: 'x', rules: [{ hours_before: 24, refund_percent: 100 }] };
const price = { amount: '100.00', currency: 'MAD' } as const;
const bracket = { code: 'ADULT', label: 'Adult', min_age: 18, max_age: 99 };

/** The month's DRAFT exists: the ledger reads it before each transaction (never writes it there). */
const draftExists = () => ddb.on(GetCommand, { Key: settlementKeys.header(partnerId, 'live', period) }).resolves({ Item: { status: 'DRAFT', period } });

/** A paid booking of a quote `days` ahead, against the mocked catalog, quote and keys (each call mocks its own quote). */
async function bookingFixture() {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  draftExists();
  ddb.on(GetCommand, { Key: bookingKeys.paymentKey(partnerId, 'live', 'k1') }).resolves({ Item: { jwk: { ...(await exportJWK(publicKey)), kid: 'k1' } } });
  ddb.on(GetCommand, { Key: bookingKeys.customerRefKey(partnerId) }).resolves({ Item: { key: Buffer.alloc(32).toString('base64') } });
  ddb.on(GetCommand, { Key: catalogKeys.ratePack('PROD', ratePackId) }).resolves({
    Item: {
      rate_pack: {
        id: ratePackId,
        name: 'Day',
        booking_mode: 'FLEXIBLE',
        age_brackets: [{ ...bracket, price: '100.00' }],
        min_travelers: 1,
        max_travelers: 10,
        cancellation_policy: policy,
        schedule: { weekdays: [1, 2, 3, 4, 5, 6, 7], daily_capacity: 10 },
      },
      adventure: { id: adventureId, slug: 'a', title: 'A', active: true, city: 'Fes' },
    },
  });
  return async (days: number) => {
    const id = randomUUID();
    const quote = {
      id,
      partner_id: partnerId,
      env: 'live',
      inventory: 'LIVE',
      adventure_id: adventureId,
      adventure_slug: 'a',
      adventure_title: 'A',
      rate_pack_id: ratePackId,
      rate_pack_name: 'Day',
      booking_mode: 'FLEXIBLE',
      start_date: addDays(localDate(now), days),
      start_time: null,
      starts_at: new Date(Date.now() + days * 86_400_000).toISOString(),
      travelers: [{ index: 0, age: 30, age_bracket: bracket, price }],
      net_amount: price,
      cancellation_policy: policy,
      created_at: now.toISOString(),
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    };
    ddb.on(GetCommand, { Key: quoteKeys.quote(id) }).resolves({ Item: { ...quoteKeys.quote(id), ...quote } });
    const claims = { quote_id: id, amount: price, payment_reference: `PAY-${days}`, paid_at: now.toISOString() };
    const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(privateKey);
    const input = {
      quote_id: id,
      partner_reference: `REF-${days}`,
      customer_reference: 'C-1',
      contact: { first_name: 'A', last_name: 'B', email: 'a@example.com', phone: '+212 600 000 000' },
      travelers: [{ first_name: 'A', last_name: 'B' }],
      payment_confirmation: jws,
    };
    return input;
  };
}

describe('no item is shared by two unrelated writes of one partner', () => {
  it('two bookings on two slots', async () => {
    const { createBooking } = await import('../../shared/bookings/create');
    const bookingOf = await bookingFixture();
    // The quote's item is the second of a booking's transaction: failing it ends the use case once its transaction is sent.
    captureTransactions(1);
    for (const days of [10, 11]) {
      await createBooking({ partnerId, env: 'live', memberId: randomUUID(), role: 'PARTNER_ADMIN' }, await bookingOf(days)).catch(() => undefined);
    }
    expect(sent).toHaveLength(2);
    // What each holds: the seats, the quote, the reference, the booking, its settlement line, its event; nothing of the settlement.
    expect(sent[0]!.length).toBeGreaterThanOrEqual(6);
    expect(keysOf(sent[0]!).some((k) => k.includes(settlementKeys.tenantPartition(partnerId, 'live')))).toBe(false);
    expect(keysOf(sent[0]!).some((k) => k.includes(settlementKeys.ledgerPartition(partnerId, 'live', period)))).toBe(true);
    expect(shared(sent[0]!, sent[1]!)).toEqual([]);
  });

  it("a slot whose seats stay contended: the booking's retries stop at MAX_BOOKING_ATTEMPTS, or sooner at the invocation's deadline", async () => {
    const { createBooking, MAX_BOOKING_ATTEMPTS } = await import('../../shared/bookings/create');
    const bookingOf = await bookingFixture();
    // Every transaction loses the slot's seats (its first item) to another in flight, as DynamoDB answers it.
    ddb.on(TransactWriteCommand).callsFake((input: { TransactItems: TransactItem[] }) => {
      sent.push(input.TransactItems);
      const reasons = input.TransactItems.map((_, i) => ({ Code: i === 0 ? 'TransactionConflict' : 'None' }));
      throw new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: reasons });
    });
    const tenant = { partnerId, env: 'live', memberId: randomUUID(), role: 'PARTNER_ADMIN' } as const;
    const contended = { code: 'booking.slot.contended', status: 409 };
    await expect(createBooking(tenant, await bookingOf(12))).rejects.toMatchObject(contended);
    expect(sent).toHaveLength(MAX_BOOKING_ATTEMPTS);
    // The route hands the invocation's deadline (its remaining time less the answer's reserve): once past, no further attempt.
    sent = [];
    await expect(createBooking(tenant, await bookingOf(13), undefined, new Date(), Date.now())).rejects.toMatchObject(contended);
    expect(sent).toHaveLength(1);
  });

  const booking = (days: number): BookingRecord => ({
    booking_number: `PTB-${randomUUID().slice(0, 4).toUpperCase()}-${randomUUID().slice(0, 4).toUpperCase()}`,
    partner_id: partnerId,
    env: 'live',
    partner_reference: `REF-${randomUUID().slice(0, 6)}`,
    customer_ref_hash: 'h',
    status: 'CONFIRMED',
    quote_id: randomUUID(),
    inventory: 'LIVE',
    adventure: { id: adventureId, slug: 'a', title: 'A' },
    rate_pack: { id: ratePackId, name: 'Day', booking_mode: 'FLEXIBLE' },
    travel_date: addDays(localDate(now), days),
    start_time: null,
    starts_at: new Date(Date.now() + days * 86_400_000).toISOString(),
    contact: { first_name: 'A', last_name: 'B', email: 'a@example.com', phone: '+212 600 000 000' },
    travelers: [{ first_name: 'A', last_name: 'B', age: 30, age_bracket: bracket, price }],
    net_amount: price,
    cancellation_policy: policy,
    payment: { payment_reference: 'PAY', paid_at: now.toISOString(), amount: price, kid: 'k1' },
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    settlement_period: period,
  });

  it('two cancellations, in the month of their bookings and after it (adjustments)', async () => {
    const { cancelBooking } = await import('../../shared/bookings/cancel');
    draftExists();
    captureTransactions(0);
    const inMonth = [await firstSent(() => cancelBooking(booking(10), 'PARTNER', null)), await firstSent(() => cancelBooking(booking(11), 'SERVICE', null))];
    // Bookings of an earlier, issued month: their refunds are ADJUSTMENT lines of this month, each its own.
    const earlier = periodOf(new Date(Date.parse(`${period}-01T12:00:00Z`) - 86_400_000 * 3));
    ddb.on(GetCommand, { Key: settlementKeys.header(partnerId, 'live', earlier) }).resolves({ Item: { status: 'ISSUED', number: 'PTS-000001' } });
    const adjusted = [
      await firstSent(() => cancelBooking({ ...booking(12), settlement_period: earlier }, 'SERVICE', null)),
      await firstSent(() => cancelBooking({ ...booking(13), settlement_period: earlier }, 'SERVICE', null)),
    ];
    const all = [...inMonth, ...adjusted];
    for (const t of adjusted) expect(keysOf(t).some((k) => k.includes(settlementKeys.ledgerPartition(partnerId, 'live', period)))).toBe(true);
    for (const [i, x] of all.entries()) for (const y of all.slice(i + 1)) expect(shared(x, y)).toEqual([]);
  });

  it('two completions', async () => {
    const { completeBooking } = await import('../../shared/bookings/complete');
    draftExists();
    captureTransactions(0);
    const [a, b] = [await firstSent(() => completeBooking(booking(-2))), await firstSent(() => completeBooking(booking(-1)))];
    expect(keysOf(a).some((k) => k.includes(settlementKeys.ledgerPartition(partnerId, 'live', period)))).toBe(true);
    expect(shared(a, b)).toEqual([]);
  });

  it('two reviews of one adventure, and an edit and a moderation of each', async () => {
    const { reviewStore } = await import('../../shared/reviews/store');
    const { ratingDelta } = await import('../../shared/reviews/rules');
    const review = (rating: number): ReviewRecord =>
      ({
        id: randomUUID(),
        space: 'LIVE',
        source: 'PARTNER',
        reviewable_type: 'EXPERIENCE',
        reviewable_id: adventureId,
        rating,
        title: null,
        comment: 'ok',
        author_name: 'A B.',
        author_avatar: null,
        photos: [],
        status: 'VISIBLE',
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
        moderated_at: null,
        version: 1,
      }) as unknown as ReviewRecord;
    // What createReview, editReview and moderateReview put in their transactions (besides photos, events and the seal).
    const writes = (r: ReviewRecord, bookingNumber: string) => {
      const edited = { ...r, rating: 2, version: 2 };
      const hidden = { ...edited, status: 'HIDDEN' as const, version: 3 };
      const rate = (before: ReviewRecord | undefined, after: ReviewRecord) =>
        reviewStore.rate(after.space, after.reviewable_id, ratingDelta(before, after), { reviewId: after.id, version: after.version })!;
      return [
        [reviewStore.create(r), reviewStore.once(bookingNumber, r.reviewable_id, r.id), rate(undefined, r)],
        [reviewStore.replace(edited, 1), rate(r, edited)],
        [reviewStore.replace(hidden, 2), rate(edited, hidden)],
      ];
    };
    const [a, b] = [writes(review(5), 'PTB-AAAA-AAAA'), writes(review(4), 'PTB-BBBB-BBBB')];
    for (const x of a) for (const y of b) expect(shared(x, y)).toEqual([]);
    // And never the aggregate: that one only a fold writes, after the review's transaction.
    const aggregate = keysOf([
      {
        ConditionCheck: {
          TableName: 'data',
          Key: (await import('../../shared/reviews/keys')).reviewKeys.rating('LIVE', adventureId),
          ConditionExpression: 'x',
        },
      },
    ])[0]!;
    for (const t of [...a, ...b]) expect(keysOf(t)).not.toContain(aggregate);
  });
});
