import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import { bookingBody, livePaymentKey, packs, paidClaims, quoteFor, sandboxPaymentKey, signPayment } from './booking-helpers';
import { admin, api, newPartner, write } from './helpers';
import { until } from './photo-helpers';

/**
 * A worker that dies after its operation committed and before its response
 * left (X-Fault-Inject: after-commit, enabled only on the test stack): the
 * client's retry with the same Idempotency-Key must get the answer of the
 * operation that committed, at once, and the operation must not run again.
 */
const crash = { 'x-fault-inject': 'after-commit' };
let P: Awaited<ReturnType<typeof packs>>;
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  P = await packs((await newPartner()).test_key);
  // /fail answers 500: its deliveries stay PENDING between retries.
  receiver = createServer((req, res) => res.writeHead(req.url?.startsWith('/fail') ? 500 : 200).end('ok'));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://localhost:${(receiver.address() as { port: number }).port}/hook`;
});
afterAll(() => receiver.close());

/** Sends the write, kills it after its commit, retries it with the same key and body; returns the retry's answer. */
async function crashThenRetry(method: string, path: string, key: string, body?: unknown) {
  const idempotencyKey = randomUUID();
  const died = await write(method, path, key, body, { idempotencyKey, headers: crash });
  expect(died.status, died.text).toBe(500);
  expect(died.body).toEqual({ message: 'Internal Server Error' });
  const started = Date.now();
  const retry = await write(method, path, key, body, { idempotencyKey });
  expect(Date.now() - started, 'the retry answers at once, without waiting for a lock to expire').toBeLessThan(5_000);
  expect(retry.headers.get('idempotent-replayed'), retry.text).toBe('true');
  return retry;
}

describe('a crash between commit and response', () => {
  // A date no other suite books: live seats are shared by every partner.
  const date = addDays(localDate(new Date()), 44);

  it('POST /quotes: the retry gets the quote that was created, and only one exists', async () => {
    const p = await newPartner();
    const body = { rate_pack_id: P.FLEXIBLE.id, start_date: date, start_time: null, travelers: [{ age: 30 }] };
    const r = await crashThenRetry('POST', '/quotes', p.test_key, body);
    expect(r.status).toBe(201);
    const list = (await api('GET', '/quotes', { key: p.test_key })).body.data;
    expect(list.map((q: { id: string }) => q.id)).toEqual([r.body.id]);
  });

  for (const env of ['test', 'live'] as const) {
    it(`POST /bookings (${env}): the retry gets the CONFIRMED booking, not booking.quote.already_booked; one seat is taken`, async () => {
      const p = await newPartner();
      const key = env === 'live' ? p.live_key : p.test_key;
      const jwk = env === 'live' ? await livePaymentKey(p.partner_id) : await sandboxPaymentKey(p.partner_id);
      const seatsLeft = async () =>
        (await api('GET', `/adventures/${P.FLEXIBLE.slug}/availability?from=${date}&to=${date}&rate_pack_id=${P.FLEXIBLE.id}`, { key })).body.data[0]
          .remaining as number;
      const before = await seatsLeft();
      const quote = await quoteFor(key, P.FLEXIBLE, date);
      const body = bookingBody(quote, await signPayment(jwk, paidClaims(quote)));
      const r = await crashThenRetry('POST', '/bookings', key, body);
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ status: 'CONFIRMED', quote_id: quote.id, partner_reference: body.partner_reference });
      const bookings = (await api('GET', '/bookings', { key })).body.data;
      expect(bookings.map((b: { booking_number: string }) => b.booking_number)).toEqual([r.body.booking_number]);
      expect(await seatsLeft()).toBe(before - 1);
    });
  }

  it('POST /bookings/{n}/cancel: the retry gets the CANCELLED booking, not booking.not_cancellable', async () => {
    const p = await newPartner();
    const jwk = await sandboxPaymentKey(p.partner_id);
    const quote = await quoteFor(p.test_key, P.FLEXIBLE, date);
    const booked = await write('POST', '/bookings', p.test_key, bookingBody(quote, await signPayment(jwk, paidClaims(quote))));
    const r = await crashThenRetry('POST', `/bookings/${booked.body.booking_number}/cancel`, p.test_key, { reason: 'crash test' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'CANCELLED', cancellation: { reason: 'crash test' } });
  });

  it('webhook endpoints: create, update, delete and replay each answer their committed result on the retry', async () => {
    const p = await newPartner();
    const created = await crashThenRetry('POST', '/webhooks', p.test_key, { url: receiverUrl, event_types: ['booking.confirmed'] });
    expect(created.status).toBe(201);
    // The secret is shown once: a replay carries null, as for any replay of this route.
    expect(created.body.signing_secret).toBeNull();
    expect((await api('GET', '/webhooks', { key: p.test_key })).body.data).toHaveLength(1);
    const id = created.body.id as string;

    const updated = await crashThenRetry('PATCH', `/webhooks/${id}`, p.test_key, { description: 'after a crash' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, description: 'after a crash' });

    const jwk = await sandboxPaymentKey(p.partner_id);
    const quote = await quoteFor(p.test_key, P.FLEXIBLE, date);
    await write('POST', '/bookings', p.test_key, bookingBody(quote, await signPayment(jwk, paidClaims(quote))));
    let delivery: { id: string; status: string } | undefined;
    for (let i = 0; i < 100 && delivery?.status !== 'DELIVERED'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      delivery = (await api('GET', '/webhooks/deliveries', { key: p.test_key })).body.data[0];
    }
    const replayed = await crashThenRetry('POST', `/webhooks/deliveries/${delivery!.id}/replay`, p.test_key);
    expect(replayed.status).toBe(202);
    expect(replayed.body.replay_of).toBe(delivery!.id);
    // The delivery log reads a lagging index (docs/guides/webhooks.md): wait until it shows the replay, then a moment more.
    type Logged = { id: string; replay_of: string | null; test_send?: boolean; status: string };
    const deliveries = async () => (await api('GET', `/webhooks/deliveries?endpoint_id=${id}&limit=100`, { key: p.test_key })).body.data as Logged[];
    await until(deliveries, (l) => l.some((d) => d.replay_of === delivery!.id));
    await new Promise((r) => setTimeout(r, 1500));
    expect((await deliveries()).filter((d) => d.replay_of === delivery!.id)).toHaveLength(1);

    // A test send: its outcome and the answer commit together; the retry does not send again.
    const tested = await crashThenRetry('POST', `/webhooks/${id}/test`, p.test_key, { event_type: 'booking.cancelled' });
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ event_type: 'booking.cancelled', delivered: true, http_status: 200 });
    await until(deliveries, (l) => l.some((d) => d.id === tested.body.delivery_id && d.status === 'DELIVERED'));
    await new Promise((r) => setTimeout(r, 1500));
    const sends = (await deliveries()).filter((d) => d.test_send);
    expect(sends).toHaveLength(1);
    expect(sends[0]).toMatchObject({ id: tested.body.delivery_id, test_send: true, status: 'DELIVERED', attempts: 1 });

    const deleted = await crashThenRetry('DELETE', `/webhooks/${id}`, p.test_key);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id, deleted: true });
  });

  it('webhook replay of a PENDING delivery: the retry answers the same re-driven delivery, and no second delivery exists', async () => {
    const p = await newPartner();
    const hook = await write('POST', '/webhooks', p.test_key, { url: receiverUrl.replace('/hook', '/fail'), event_types: ['booking.confirmed'] });
    const jwk = await sandboxPaymentKey(p.partner_id);
    const quote = await quoteFor(p.test_key, P.FLEXIBLE, date);
    await write('POST', '/bookings', p.test_key, bookingBody(quote, await signPayment(jwk, paidClaims(quote))));
    let pending: { id: string; status: string; attempts: number } | undefined;
    for (let i = 0; i < 100 && !(pending && pending.attempts >= 1); i++) {
      await new Promise((r) => setTimeout(r, 100));
      pending = (await api('GET', `/webhooks/deliveries?endpoint_id=${hook.body.id}`, { key: p.test_key })).body.data[0];
    }
    expect(pending).toMatchObject({ status: 'PENDING' });
    const replayed = await crashThenRetry('POST', `/webhooks/deliveries/${pending!.id}/replay`, p.test_key);
    expect(replayed.status).toBe(202);
    expect(replayed.body).toMatchObject({ id: pending!.id, replay_of: null });
    expect((await api('GET', `/webhooks/deliveries?endpoint_id=${hook.body.id}`, { key: p.test_key })).body.data).toHaveLength(1);
  });

  it('team and keys: a role change, a key issue and a revocation answer their committed result on the retry', async () => {
    const p = await newPartner();
    const m = await admin([
      'member:add',
      '--partner',
      p.partner_id,
      '--email',
      `dev-${randomUUID().slice(0, 8)}@bank.example`,
      '--role',
      'DEVELOPER',
      '--json',
    ]);
    const role = await crashThenRetry('PATCH', `/team/members/${m.json.member_id}/role`, p.live_key, { role: 'FINANCE' });
    expect(role.status).toBe(200);
    expect(role.body).toMatchObject({ id: m.json.member_id, role: 'FINANCE' });

    const issued = await crashThenRetry('POST', '/api-keys', p.live_key, { member_id: m.json.member_id });
    expect(issued.status).toBe(201);
    expect(issued.body.key).toBeNull();
    const keys = (await api('GET', '/api-keys', { key: p.live_key })).body.data;
    expect(keys.filter((k: { member_id: string }) => k.member_id === m.json.member_id)).toHaveLength(1);

    const revoked = await crashThenRetry('DELETE', `/api-keys/${issued.body.id}`, p.live_key);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: issued.body.id, status: 'REVOKED' });
  });

  it('sandbox test helpers: complete, service-cancel, the settlement run and pay answer their committed result on the retry', async () => {
    const p = await newPartner();
    const jwk = await sandboxPaymentKey(p.partner_id);
    const booked = async () => {
      const quote = await quoteFor(p.test_key, P.FLEXIBLE, date);
      return (await write('POST', '/bookings', p.test_key, bookingBody(quote, await signPayment(jwk, paidClaims(quote))))).body.booking_number as string;
    };
    const [a, b] = [await booked(), await booked()];
    const completed = await crashThenRetry('POST', `/test-helpers/bookings/${a}/complete`, p.test_key);
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({ booking_number: a, status: 'COMPLETED' });
    const cancelled = await crashThenRetry('POST', `/test-helpers/bookings/${b}/service-cancel`, p.test_key, { reason: 'crash test' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ booking_number: b, status: 'CANCELLED', cancellation: { cancelled_by: 'SERVICE' } });

    const run = await crashThenRetry('POST', '/test-helpers/settlements/run', p.test_key);
    expect(run.status).toBe(200);
    expect(run.body.data.map((s: { number: string; status: string }) => [s.number, s.status])).toEqual([['TEST-PTS-000001', 'ISSUED']]);
    const id = run.body.data[0].id as string;
    const paid = await crashThenRetry('POST', `/test-helpers/settlements/${id}/pay`, p.test_key, { transfer_reference: 'VIR-CRASH' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ id, status: 'PAID', transfer_reference: 'VIR-CRASH' });
    // Each ran once: one settlement, one number, PAID with the first transfer.
    const list = (await api('GET', '/settlements', { key: p.test_key })).body.data;
    expect(list.map((s: { number: string; status: string }) => [s.number, s.status])).toEqual([['TEST-PTS-000001', 'PAID']]);
  });

  it('only the test stack honours the fault header: without FAULT_INJECTION the route ignores it', async () => {
    const { crashAfterCommit } = await import('../../shared/http/fault');
    expect(process.env.FAULT_INJECTION).toBeUndefined();
    expect(crashAfterCommit({ headers: crash } as never)).toBe(false);
  });
});
