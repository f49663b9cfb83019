import { randomUUID } from 'node:crypto';
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { CompactSign, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { bookingKeys } from '../../shared/bookings/keys';
import { catalogKeys } from '../../shared/catalog/keys';
import { addDays, localDate } from '../../shared/kernel/time';
import { quoteKeys } from '../../shared/quotes/keys';
import { settlementKeys } from '../../shared/settlements/keys';
import { periodOf } from '../../shared/settlements/period';
import type { EndpointRecord } from '../../shared/webhooks/model';
import { makeWebhookStore } from '../../shared/webhooks/store';

// Races and rare DynamoDB outcomes that HTTP cannot provoke on demand, played against the stores with a mocked client.
vi.mock('../../shared/db/retry', async (original) => ({ ...(await original<object>()), backoff: async () => undefined }));
process.env.DATA_TABLE = 'data';
process.env.ACCESS_TABLE = 'access';

const ddb = mockClient(DynamoDBDocumentClient);
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: codes.map((Code) => ({ Code })) });

beforeEach(() => ddb.reset());
afterAll(() => ddb.restore());

describe('webhook endpoint store', () => {
  const store = makeWebhookStore({ client: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })), name: () => 'data' });
  const endpoint: EndpointRecord = {
    id: randomUUID(),
    partner_id: randomUUID(),
    env: 'test',
    url: 'https://hooks.example.com/x',
    event_types: ['booking.confirmed'],
    status: 'ACTIVE',
    description: null,
    signing_secret: 'whsec_x',
    last_http_status: null,
    last_delivery_at: null,
    created_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
  };

  it('reports the limit only when the count condition failed', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    expect(await store.createEndpoint(endpoint)).toBe('limit');
  });

  it('retries a transaction that conflicted with a concurrent creation, and never calls it the limit', async () => {
    ddb.on(TransactWriteCommand).rejectsOnce(cancelled('TransactionConflict', 'None')).rejectsOnce(cancelled('None', 'TransactionConflict')).resolves({});
    expect(await store.createEndpoint(endpoint)).toBe('created');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(3);
  });

  it('fails loudly, not as the limit, when conflicts never clear', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled('TransactionConflict', 'TransactionConflict'));
    await expect(store.createEndpoint(endpoint)).rejects.toThrow(/cancelled \(TransactionConflict/);
  });
});

describe('booking creation under contention', () => {
  it('retries conflicting transactions and answers 409 booking.slot.contended after its bound', async () => {
    const { createBooking, MAX_BOOKING_ATTEMPTS } = await import('../../shared/bookings/create');
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const partnerId = randomUUID();
    const quoteId = randomUUID();
    const ratePackId = randomUUID();
    const date = addDays(localDate(new Date()), 10);
    const quote = {
      id: quoteId,
      partner_id: partnerId,
      env: 'live',
      inventory: 'LIVE',
      adventure_id: randomUUID(),
      adventure_slug: 'a',
      adventure_title: 'A',
      rate_pack_id: ratePackId,
      rate_pack_name: 'Day',
      booking_mode: 'FLEXIBLE',
      start_date: date,
      start_time: null,
      starts_at: new Date(Date.now() + 10 * 86_400_000).toISOString(),
      travelers: [
        { index: 0, age: 30, age_bracket: { code: 'ADULT', label: 'Adult', min_age: 18, max_age: 99 }, price: { amount: '100.00', currency: 'MAD' } },
      ],
      net_amount: { amount: '100.00', currency: 'MAD' },
      cancellation_policy: { code: 'FLEX', description: 'x', rules: [{ hours_before: 24, refund_percent: 100 }] },
      created_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    };
    const ratePack = {
      id: ratePackId,
      name: 'Day',
      booking_mode: 'FLEXIBLE',
      age_brackets: [{ code: 'ADULT', label: 'Adult', min_age: 18, max_age: 99, price: '100.00' }],
      min_travelers: 1,
      max_travelers: 10,
      cancellation_policy: quote.cancellation_policy,
      schedule: { weekdays: [1, 2, 3, 4, 5, 6, 7], daily_capacity: 10 },
    };
    ddb.on(GetCommand, { Key: quoteKeys.quote(quoteId) }).resolves({ Item: { ...quoteKeys.quote(quoteId), ...quote } });
    ddb.on(GetCommand, { Key: bookingKeys.paymentKey(partnerId, 'live', 'k1') }).resolves({ Item: { jwk: { ...(await exportJWK(publicKey)), kid: 'k1' } } });
    ddb
      .on(GetCommand, { Key: catalogKeys.ratePack('PROD', ratePackId) })
      .resolves({ Item: { rate_pack: ratePack, adventure: { id: quote.adventure_id, slug: 'a', title: 'A', active: true, city: 'Fes' } } });
    ddb.on(GetCommand, { Key: bookingKeys.customerRefKey(partnerId) }).resolves({ Item: { key: Buffer.alloc(32).toString('base64') } });
    // The month's DRAFT exists (read before each attempt, never written by the booking).
    ddb.on(GetCommand, { Key: settlementKeys.header(partnerId, 'live', periodOf(new Date())) }).resolves({ Item: { status: 'DRAFT' } });
    ddb.on(TransactWriteCommand).rejects(cancelled('None', 'None', 'None', 'None', 'TransactionConflict'));

    const claims = { quote_id: quoteId, amount: quote.net_amount, payment_reference: 'PAY-1', paid_at: new Date().toISOString() };
    const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(privateKey);
    const input = {
      quote_id: quoteId,
      partner_reference: 'REF-1',
      customer_reference: 'C-1',
      contact: { first_name: 'A', last_name: 'B', email: 'a@example.com', phone: '+212 600 000 000' },
      travelers: [{ first_name: 'A', last_name: 'B' }],
      payment_confirmation: jws,
    };
    await expect(createBooking({ partnerId, env: 'live', memberId: randomUUID(), role: 'PARTNER_ADMIN' }, input)).rejects.toMatchObject({
      code: 'booking.slot.contended',
      status: 409,
      headers: { 'retry-after': '1' },
    });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(MAX_BOOKING_ATTEMPTS);
  });
});

describe('a sealed transaction', () => {
  it('marks the seal committed only when the transaction commits', async () => {
    const { transact } = await import('../../shared/db/client');
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
    const item = { Put: { TableName: 'data', Item: { pk: 'a', sk: 'b' } } };
    let commits = 0;
    const guard = { item, refusal: () => new Error('lost'), committed: () => void commits++ };
    ddb.on(TransactWriteCommand).rejectsOnce(cancelled('ConditionalCheckFailed', 'None')).resolves({});
    expect((await transact(client, { op: item }, [], [guard]))?.failed('op')).toBe(true);
    expect(commits).toBe(0);
    expect(await transact(client, { op: item }, [], [guard])).toBeUndefined();
    expect(commits).toBe(1);
  });

  it("throws the guard's refusal when the request lost its idempotency lock, and commits nothing of the operation", async () => {
    const { transact } = await import('../../shared/db/client');
    const { lockLost } = await import('../../shared/platform/idempotency');
    ddb.on(TransactWriteCommand).rejects(cancelled('None', 'None', 'ConditionalCheckFailed'));
    const item = { Put: { TableName: 'data', Item: { pk: 'a', sk: 'b' } } };
    await expect(
      transact(
        DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
        { op: item },
        [item],
        [{ item, refusal: () => lockLost('K'), committed: () => undefined }],
      ),
    ).rejects.toMatchObject({
      code: 'idempotency.request.in_progress',
      status: 409,
    });
  });
});
