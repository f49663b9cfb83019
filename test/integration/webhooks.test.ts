import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readRuntime } from '../../infra/local/runtime-info';
import { verifyWebhook } from '../../sdk/src/index';
import { eventKeys } from '../../shared/events/keys';
import { EVENT_PAYLOADS } from '../../shared/events/payloads';
import { EVENT_TYPES } from '../../shared/events/types';
import { addDays, localDate } from '../../shared/kernel/time';
import { webhookKeys } from '../../shared/webhooks/keys';
import { bookingBody, livePaymentKey, packs, paidClaims, quoteFor, sandboxPaymentKey, signPayment } from './booking-helpers';
import { admin, api, newPartner, pastIndexLag, stageEarlyRetry, testDb, write } from './helpers';

interface Received {
  path: string;
  headers: Record<string, string>;
  raw: string;
  at: number;
}

// A real receiver: /ok/*, /fail-twice/* (500 twice, then 200), /always-fail/* (500, or 200 once healed), /redirect/*.
const received: Received[] = [];
const calls = new Map<string, number>();
const healed = new Set<string>();
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers as Record<string, string>, raw, at: Date.now() });
      const n = (calls.get(path) ?? 0) + 1;
      calls.set(path, n);
      if (path.startsWith('/redirect')) {
        res.writeHead(302, { location: '/ok/redirected' });
        return res.end();
      }
      const fail = (path.startsWith('/fail-twice') && n <= 2) || (path.startsWith('/always-fail') && !healed.has(path));
      res.writeHead(fail ? 500 : 200, { 'content-type': 'text/plain' });
      res.end(fail ? 'nope' : 'ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  // Registered by host name, as a bank's endpoint is: the connection is pinned through `lookup`.
  base = `http://localhost:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const until = async <T>(fn: () => T | Promise<T>, ok: (v: T) => boolean, ms = 45_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
};
const at = (path: string) => received.filter((r) => r.path === path);

async function endpoint(key: string, path: string, types: string[] = ['booking.confirmed']) {
  const r = await write('POST', '/webhooks', key, { url: `${base}${path}`, event_types: types });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; signing_secret: string };
}

/** The DLQ message of a delivery, if one arrives within `ms` (the local SQS server, read without consuming). */
async function deadLetterOf(deliveryId: string, ms: number) {
  const runtime = readRuntime(inject('stateDir'), inject('port'))!;
  const sqs = new SQSClient({
    region: 'us-east-1',
    endpoint: runtime.env.AWS_ENDPOINT_URL_SQS,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  return until(
    async () => {
      const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: runtime.env.WEBHOOK_QUEUE_URL_DLQ, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }));
      return (r.Messages ?? []).map((m) => JSON.parse(m.Body!)).find((m) => m.delivery_id === deliveryId);
    },
    (m) => !!m,
    ms,
  );
}

let P: Awaited<ReturnType<typeof packs>>;
async function book(p: Awaited<ReturnType<typeof newPartner>>, jwk?: import('jose').JWK) {
  P ??= await packs(p.test_key);
  const key = jwk ?? (await sandboxPaymentKey(p.partner_id));
  const q = await quoteFor(p.test_key, P.FLEXIBLE, addDays(localDate(new Date()), 8));
  const r = await write('POST', '/bookings', p.test_key, bookingBody(q, await signPayment(key, paidClaims(q))));
  expect(r.status, r.text).toBe(201);
  return r.body as { booking_number: string; partner_reference: string };
}

describe('webhook endpoints', () => {
  it('shows the signing secret once, never again (not even in an idempotent replay), and manages the endpoint', async () => {
    const p = await newPartner();
    const idem = randomUUID();
    const body = { url: `${base}/ok/crud`, event_types: ['booking.confirmed', 'adventure.unavailable'], description: 'main' };
    const created = await write('POST', '/webhooks', p.test_key, body, { idempotencyKey: idem });
    expect(created.status).toBe(201);
    expect(created.body.signing_secret).toMatch(/^whsec_/);
    expect(created.body).toMatchObject({ status: 'ACTIVE', last_http_status: null, event_types: ['adventure.unavailable', 'booking.confirmed'] });
    const replay = await write('POST', '/webhooks', p.test_key, body, { idempotencyKey: idem });
    expect(replay.body).toMatchObject({ id: created.body.id, signing_secret: null });
    const got = await api('GET', `/webhooks/${created.body.id}`, { key: p.test_key });
    expect(got.body.signing_secret).toBeUndefined();
    expect(got.text).not.toContain(created.body.signing_secret);
    expect((await api('GET', '/webhooks', { key: p.test_key })).body.data.map((e: { id: string }) => e.id)).toEqual([created.body.id]);
    expect((await api('GET', '/webhooks', { key: p.live_key })).body.data).toEqual([]);
    const patched = await write('PATCH', `/webhooks/${created.body.id}`, p.test_key, { status: 'DISABLED', event_types: ['booking.cancelled'] });
    expect(patched.body).toMatchObject({ status: 'DISABLED', event_types: ['booking.cancelled'] });
    expect((await api('GET', `/webhooks/${created.body.id}`, { key: (await newPartner()).test_key })).status).toBe(404);
    expect((await write('DELETE', `/webhooks/${created.body.id}`, p.test_key)).body).toEqual({ id: created.body.id, deleted: true });
    expect((await api('GET', `/webhooks/${created.body.id}`, { key: p.test_key })).status).toBe(404);
    const badType = await write('POST', '/webhooks', p.test_key, { url: `${base}/ok/x`, event_types: ['booking.exploded'] });
    expect(badType.status).toBe(400);
    expect(badType.body.details.errors[0].field).toBe('event_types.0');
  });

  it('keeps the subscription index with the endpoint (create, change, disable, delete); webhooks:reindex writes it for older endpoints', async () => {
    const p = await newPartner();
    const e = await endpoint(p.test_key, '/ok/index', ['adventure.unavailable', 'booking.confirmed']);
    const { ddb, dataTable } = testDb();
    const indexed = async (type: string) =>
      !!(await ddb.send(new GetCommand({ TableName: dataTable, Key: webhookKeys.subscription('test', type, p.partner_id, e.id), ConsistentRead: true }))).Item;
    expect([await indexed('adventure.unavailable'), await indexed('booking.confirmed'), await indexed('booking.cancelled')]).toEqual([true, true, false]);
    // An endpoint from before the index: its items are missing until webhooks:reindex.
    for (const type of ['adventure.unavailable', 'booking.confirmed'])
      await ddb.send(new DeleteCommand({ TableName: dataTable, Key: webhookKeys.subscription('test', type, p.partner_id, e.id) }));
    expect(await indexed('adventure.unavailable')).toBe(false);
    await pastIndexLag(); // the command reads through an index
    const re = await admin(['webhooks:reindex', '--json']);
    expect(re.code, re.stderr).toBe(0);
    expect(re.json.endpoints).toBeGreaterThanOrEqual(1);
    expect([await indexed('adventure.unavailable'), await indexed('booking.confirmed')]).toEqual([true, true]);
    await write('PATCH', `/webhooks/${e.id}`, p.test_key, { event_types: ['booking.cancelled', 'booking.confirmed'] });
    expect([await indexed('adventure.unavailable'), await indexed('booking.confirmed'), await indexed('booking.cancelled')]).toEqual([false, true, true]);
    await write('PATCH', `/webhooks/${e.id}`, p.test_key, { status: 'DISABLED' });
    expect([await indexed('booking.confirmed'), await indexed('booking.cancelled')]).toEqual([false, false]);
    await write('PATCH', `/webhooks/${e.id}`, p.test_key, { status: 'ACTIVE' });
    expect([await indexed('booking.confirmed'), await indexed('booking.cancelled')]).toEqual([true, true]);
    await write('DELETE', `/webhooks/${e.id}`, p.test_key);
    expect([await indexed('booking.confirmed'), await indexed('booking.cancelled')]).toEqual([false, false]);
  });

  it('refuses URLs that are not HTTPS or point at private, loopback, link-local or reserved addresses', async () => {
    const p = await newPartner();
    for (const url of [
      'http://example.com/hook',
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://127.0.0.2/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://192.168.1.20/x',
      'https://no-such-host.invalid/x',
      'ftp://example.com/x',
    ]) {
      const r = await write('POST', '/webhooks', p.test_key, { url, event_types: ['booking.confirmed'] });
      expect(`${r.status} ${r.body.code}`, url).toBe('422 webhook.url.refused');
    }
    const e = await endpoint(p.test_key, '/ok/patch-check');
    expect((await write('PATCH', `/webhooks/${e.id}`, p.test_key, { url: 'https://10.1.1.1/' })).body.code).toBe('webhook.url.refused');
  });

  it('POST /webhooks/{id}/test sends a signed example event with test: true and reports status and time; redirects are not followed', async () => {
    const p = await newPartner();
    const e = await endpoint(p.live_key, '/ok/test-send');
    // No body: the endpoint's first subscribed type.
    const r = await write('POST', `/webhooks/${e.id}/test`, p.live_key);
    expect(r.body).toMatchObject({ event_type: 'booking.confirmed', delivered: true, http_status: 200, error: null });
    expect(r.body.response_time_ms).toBeGreaterThanOrEqual(0);
    const got = at('/ok/test-send')[0]!;
    const envelope = JSON.parse(got.raw);
    expect(envelope).toMatchObject({ id: r.body.event_id, type: 'booking.confirmed', test: true });
    expect(EVENT_PAYLOADS['booking.confirmed'].safeParse(envelope.data).success, got.raw).toBe(true);
    expect(got.headers['x-service-signature']).toBe(createHmac('sha256', e.signing_secret).update(got.raw).digest('hex'));
    expect(got.headers['x-service-delivery-attempt']).toBe('1');
    expect((await api('GET', `/webhooks/${e.id}`, { key: p.live_key })).body.last_http_status).toBe(200);

    const redirect = await endpoint(p.live_key, '/redirect/a');
    const rr = await write('POST', `/webhooks/${redirect.id}/test`, p.live_key);
    expect(rr.body).toMatchObject({ delivered: false, http_status: 302 });
    expect(at('/ok/redirected')).toHaveLength(0);
  });

  it('test sends: one per event type with its realistic payload, listed in the delivery log as test sends, attempted once', async () => {
    const p = await newPartner();
    const path = `/ok/test-types-${randomUUID().slice(0, 8)}`;
    // Subscribed to one type only: any type may still be tried.
    const e = await endpoint(p.test_key, path, ['booking.cancelled']);
    const results = [];
    for (const type of EVENT_TYPES) {
      const r = await write('POST', `/webhooks/${e.id}/test`, p.test_key, { event_type: type });
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ event_type: type, delivered: true, http_status: 200 });
      results.push(r.body);
    }
    const hits = at(path);
    expect(hits.map((h) => h.headers['x-service-event-type'])).toEqual([...EVENT_TYPES]);
    // Each send carries, as X-Service-Delivery-Id, the delivery_id it answers.
    expect(hits.map((h) => h.headers['x-service-delivery-id'])).toEqual(results.map((r) => r.delivery_id));
    for (const h of hits) {
      const envelope = JSON.parse(h.raw);
      expect(envelope.test).toBe(true);
      const parsed = EVENT_PAYLOADS[envelope.type as (typeof EVENT_TYPES)[number]].safeParse(envelope.data);
      expect(parsed.success, `${envelope.type}: ${h.raw}`).toBe(true);
    }
    expect((await write('POST', `/webhooks/${e.id}/test`, p.test_key, { event_type: 'booking.exploded' })).status).toBe(400);

    // The delivery log reads an index that lags its writes (docs/guides/webhooks.md): wait for it, bounded.
    const log = await until(
      async () => (await api('GET', `/webhooks/deliveries?endpoint_id=${e.id}&limit=100`, { key: p.test_key })).body.data as { id: string; status: string }[],
      (l) => l.length >= EVENT_TYPES.length && l.every((d) => d.status === 'DELIVERED'),
    );
    expect(log).toHaveLength(EVENT_TYPES.length);
    expect(new Set(log.map((d: { id: string }) => d.id))).toEqual(new Set(results.map((r) => r.delivery_id)));
    for (const d of log) expect(d).toMatchObject({ test_send: true, test: true, status: 'DELIVERED', attempts: 1, last_http_status: 200 });
    // The delivery id the receiver saw resolves to the logged test send.
    const seen = hits[0]!.headers['x-service-delivery-id']!;
    const detail = (await api('GET', `/webhooks/deliveries/${seen}`, { key: p.test_key })).body;
    expect(detail).toMatchObject({ id: results[0].delivery_id, test_send: true, last_attempt_id: seen });
    expect(detail.attempt_log).toEqual([expect.objectContaining({ id: seen, number: 1, http_status: 200, error: null, result: 'SUCCEEDED' })]);

    // A failing test send is recorded FAILED and never retried (nor dead-lettered).
    const failPath = `/always-fail/test-${randomUUID().slice(0, 8)}`;
    const f = await endpoint(p.test_key, failPath);
    const failed = await write('POST', `/webhooks/${f.id}/test`, p.test_key, { event_type: 'booking.completed' });
    expect(failed.body).toMatchObject({ delivered: false, http_status: 500, error: 'HTTP 500' });
    await new Promise((r) => setTimeout(r, 3000));
    expect(at(failPath)).toHaveLength(1);
    const failedLog = await until(
      async () => (await api('GET', `/webhooks/deliveries?endpoint_id=${f.id}`, { key: p.test_key })).body.data as { status: string }[],
      (l) => l.some((d) => d.status === 'FAILED'),
    );
    expect(failedLog).toEqual([expect.objectContaining({ test_send: true, status: 'FAILED', attempts: 1, next_attempt_at: null, dead_lettered_at: null })]);
  });
});

describe('event delivery', () => {
  it('delivers a booking.confirmed envelope whose signature verifies over the received bytes; other subscriptions get nothing', async () => {
    const p = await newPartner();
    const e = await endpoint(p.test_key, '/ok/delivery');
    await endpoint(p.test_key, '/ok/other-types', ['settlement.paid', 'review.moderated']);
    const b = await book(p);
    const got = (
      await until(
        () => at('/ok/delivery'),
        (r) => r.length > 0,
      )
    )[0]!;
    const envelope = JSON.parse(got.raw);
    expect(Object.keys(envelope)).toEqual(['id', 'type', 'created_at', 'test', 'data']);
    expect(envelope).toMatchObject({
      type: 'booking.confirmed',
      test: true,
      data: { booking_number: b.booking_number, partner_reference: b.partner_reference, status: 'CONFIRMED' },
    });
    // The real payload has exactly the fields its schema (and the test-send example) has.
    expect(EVENT_PAYLOADS['booking.confirmed'].safeParse(envelope.data).success, got.raw).toBe(true);
    expect(got.headers['x-service-delivery-attempt']).toBe('1');
    expect(got.headers['x-service-signature']).toBe(createHmac('sha256', e.signing_secret).update(got.raw, 'utf8').digest('hex'));
    expect(got.headers['x-service-event-id']).toBe(envelope.id);
    expect(got.headers['x-service-event-type']).toBe('booking.confirmed');
    expect(got.headers['x-service-delivery-id']).toMatch(/^[0-9a-f-]{36}$/);
    // The Standard Webhooks headers, checked by the specification's own package as a receiver would.
    expect(e.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(got.headers['webhook-id']).toBe(envelope.id);
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(new StandardWebhook(e.signing_secret).verify(got.raw, got.headers)).toEqual(envelope);
    expect(() => new StandardWebhook(e.signing_secret).verify(got.raw.replace(b.booking_number, 'PTB-XXXX-XXXX'), got.headers)).toThrow(/signature/i);
    const old = { ...got.headers, 'webhook-timestamp': String(Number(got.headers['webhook-timestamp']) - 600) };
    expect(() => new StandardWebhook(e.signing_secret).verify(got.raw, old)).toThrow(/too old/);
    const other = (await endpoint(p.test_key, '/ok/other-secret', ['settlement.paid'])).signing_secret;
    expect(() => new StandardWebhook(other).verify(got.raw, got.headers)).toThrow(/signature/i);
    // And the SDK's verifier, which also bounds the timestamp.
    expect(verifyWebhook(got.raw, got.headers, e.signing_secret).id).toBe(envelope.id);
    expect(() => verifyWebhook(got.raw, old, e.signing_secret)).toThrow(/tolerance/);
    await new Promise((r) => setTimeout(r, 1500));
    expect(at('/ok/other-types')).toHaveLength(0);
    const log = (await api('GET', '/webhooks/deliveries', { key: p.test_key })).body.data;
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ event_id: envelope.id, endpoint_id: e.id, status: 'DELIVERED', attempts: 1, last_http_status: 200 });
  });

  it('a receiver failing twice gets the event on the third attempt, after the scheduled (scaled) waits, with a new delivery id each time', async () => {
    const p = await newPartner();
    const e = await endpoint(p.test_key, `/fail-twice/${randomUUID().slice(0, 8)}`);
    const path = `/fail-twice/${(await api('GET', `/webhooks/${e.id}`, { key: p.test_key })).body.url.split('/fail-twice/')[1]}`;
    await book(p);
    const hits = await until(
      () => at(path),
      (r) => r.length >= 3,
    );
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((h) => h.headers['x-service-delivery-id'])).size).toBe(3);
    expect(new Set(hits.map((h) => h.headers['x-service-event-id'])).size).toBe(1);
    // Retries go through one-time schedules, which the local Scheduler fires at the start of their minute (as early
    // as AWS may): each retry still comes no earlier than its scaled wait, as the worker holds an early one back.
    expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(300 * 0.0001 * 1000);
    expect(hits[2]!.at - hits[1]!.at).toBeGreaterThanOrEqual(900 * 0.0001 * 1000);
    const d = await until(
      async () => (await api('GET', '/webhooks/deliveries', { key: p.test_key })).body.data[0],
      (x) => x?.status === 'DELIVERED',
    );
    expect(d).toMatchObject({ status: 'DELIVERED', attempts: 3, last_http_status: 200 });
    expect(hits.map((h) => h.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3']);

    // Every attempt id the receiver logged resolves to this delivery, with all its attempts.
    const ids = hits.map((h) => h.headers['x-service-delivery-id']!);
    expect(d.last_attempt_id).toBe(ids[2]);
    for (const id of [d.id, ...ids]) {
      const r = await api('GET', `/webhooks/deliveries/${id}`, { key: p.test_key });
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ id: d.id, event_id: hits[0]!.headers['x-service-event-id'], status: 'DELIVERED', attempts: 3 });
      expect(r.body.attempt_log.map((a: { id: string }) => a.id)).toEqual(ids);
      expect(r.body.attempt_log).toEqual([
        expect.objectContaining({ number: 1, http_status: 500, error: 'HTTP 500', result: 'FAILED' }),
        expect.objectContaining({ number: 2, http_status: 500, error: 'HTTP 500', result: 'FAILED' }),
        expect.objectContaining({ number: 3, http_status: 200, error: null, result: 'SUCCEEDED' }),
      ]);
      for (const a of r.body.attempt_log) {
        expect(a.response_time_ms).toBeGreaterThanOrEqual(0);
        expect(Date.parse(a.attempted_at)).toBeGreaterThan(0);
      }
    }
    // Scoped to the partner and environment.
    expect((await api('GET', `/webhooks/deliveries/${ids[0]}`, { key: p.live_key })).status).toBe(404);
    expect((await api('GET', `/webhooks/deliveries/${ids[0]}`, { key: (await newPartner()).test_key })).status).toBe(404);
    expect((await api('GET', `/webhooks/deliveries/${randomUUID()}`, { key: p.test_key })).body.code).toBe('resource.not_found');
  });

  it('a replay of a PENDING delivery re-drives that same delivery now; the retry scheduled for later finds it done and sends nothing', async () => {
    const p = await newPartner();
    const path = `/always-fail/pending-${randomUUID().slice(0, 8)}`;
    const e = await endpoint(p.test_key, path);
    await book(p);
    // After 5 failed attempts the 6th is scheduled 24 h (scaled: about 9 s) later.
    const failedFive = await until(
      async () => (await api('GET', `/webhooks/deliveries?endpoint_id=${e.id}`, { key: p.test_key })).body.data[0],
      (x) => x?.attempts === 5,
      55_000,
    );
    expect(failedFive).toMatchObject({ status: 'PENDING', attempts: 5 });
    healed.add(path);
    const replay = await write('POST', `/webhooks/deliveries/${failedFive.last_attempt_id}/replay`, p.test_key);
    expect(replay.status, replay.text).toBe(202);
    expect(replay.body).toMatchObject({ id: failedFive.id, status: 'PENDING', replay_of: null, attempts: 5 });
    const done = await until(
      async () => (await api('GET', `/webhooks/deliveries/${failedFive.id}`, { key: p.test_key })).body,
      (x) => x.status === 'DELIVERED',
    );
    expect(done).toMatchObject({ status: 'DELIVERED', attempts: 6, last_http_status: 200 });
    // Wait past the retry that was scheduled before the replay: it is skipped, nothing is sent twice.
    await new Promise((r) => setTimeout(r, 11_000));
    expect(at(path)).toHaveLength(6);
    const after = (await api('GET', `/webhooks/deliveries/${failedFive.id}`, { key: p.test_key })).body;
    expect(after).toMatchObject({ status: 'DELIVERED', attempts: 6 });
    expect(after.attempt_log).toHaveLength(6);
    // One delivery carried the event: the replay made no second one.
    expect((await api('GET', `/webhooks/deliveries?event_id=${failedFive.event_id}`, { key: p.test_key })).body.data).toHaveLength(1);
  }, 90_000);

  it('a retry received 30 s before it is due (Scheduler fires within the minute of its time) is sent at its due time, not before', async () => {
    const p = await newPartner();
    const path = `/ok/early-${randomUUID().slice(0, 8)}`;
    await endpoint(p.test_key, path);
    await book(p);
    await until(
      () => at(path),
      (r) => r.length === 1,
    );
    const d = await until(
      async () => (await api('GET', '/webhooks/deliveries', { key: p.test_key })).body.data[0],
      (x) => x?.status === 'DELIVERED',
    );
    const due = new Date(Date.now() + 30_000);
    await stageEarlyRetry(d.id, due);
    const hits = await until(
      () => at(path),
      (r) => r.length === 2,
      60_000,
    );
    expect(hits).toHaveLength(2);
    expect(hits[1]!.headers['x-service-delivery-attempt']).toBe('2');
    // The early message waited on the queue for the rest of the wait: sent once due, and soon after.
    expect(hits[1]!.at).toBeGreaterThanOrEqual(due.getTime());
    expect(hits[1]!.at).toBeLessThan(due.getTime() + 10_000);
    expect((await api('GET', `/webhooks/deliveries/${d.id}`, { key: p.test_key })).body).toMatchObject({ status: 'DELIVERED', attempts: 2 });
  }, 90_000);

  it('filters the delivery log by endpoint_id and event_id, combined with status; keyset pages stay consistent', async () => {
    const p = await newPartner();
    const a = await endpoint(p.test_key, `/ok/filter-a-${randomUUID().slice(0, 8)}`);
    const b = await endpoint(p.test_key, `/ok/filter-b-${randomUUID().slice(0, 8)}`);
    await book(p);
    await book(p);
    const all = await until(
      async () => (await api('GET', '/webhooks/deliveries?status=DELIVERED', { key: p.test_key })).body.data,
      (x) => x.length === 4,
    );
    expect(all).toHaveLength(4);
    for (const ep of [a, b]) {
      const mine = (await api('GET', `/webhooks/deliveries?endpoint_id=${ep.id}`, { key: p.test_key })).body.data;
      expect(mine).toHaveLength(2);
      expect(mine.every((d: { endpoint_id: string }) => d.endpoint_id === ep.id)).toBe(true);
      expect((await api('GET', `/webhooks/deliveries?endpoint_id=${ep.id}&status=DELIVERED`, { key: p.test_key })).body.data).toHaveLength(2);
      expect((await api('GET', `/webhooks/deliveries?endpoint_id=${ep.id}&status=FAILED,PENDING`, { key: p.test_key })).body.data).toHaveLength(0);
      // Keyset pages of one: no duplicates, no gaps.
      const first = (await api('GET', `/webhooks/deliveries?endpoint_id=${ep.id}&limit=1`, { key: p.test_key })).body;
      expect(first.data).toHaveLength(1);
      const second = (
        await api('GET', `/webhooks/deliveries?endpoint_id=${ep.id}&limit=1&cursor=${encodeURIComponent(first.meta.next_cursor)}`, { key: p.test_key })
      ).body;
      expect([first.data[0].id, second.data[0].id].sort()).toEqual(mine.map((d: { id: string }) => d.id).sort());
    }
    const eventId = all[0].event_id;
    const byEvent = (await api('GET', `/webhooks/deliveries?event_id=${eventId}`, { key: p.test_key })).body.data;
    expect(byEvent.map((d: { endpoint_id: string }) => d.endpoint_id).sort()).toEqual([a.id, b.id].sort());
    expect((await api('GET', `/webhooks/deliveries?event_id=${eventId}&endpoint_id=${a.id}`, { key: p.test_key })).body.data).toHaveLength(1);
    // Another partner's endpoint id filters to nothing; a malformed one is a 400.
    expect((await api('GET', `/webhooks/deliveries?endpoint_id=${a.id}`, { key: (await newPartner()).test_key })).body.data).toHaveLength(0);
    expect((await api('GET', '/webhooks/deliveries?endpoint_id=nope', { key: p.test_key })).status).toBe(400);
  });

  it('refuses to replay a delivery whose endpoint was deleted (409 webhook.endpoint.deleted), and sends nothing', async () => {
    const p = await newPartner();
    const path = `/ok/deleted-${randomUUID().slice(0, 8)}`;
    const e = await endpoint(p.test_key, path);
    await book(p);
    const delivered = await until(
      async () => (await api('GET', '/webhooks/deliveries?status=DELIVERED', { key: p.test_key })).body.data,
      (x) => x.length === 1,
    );
    expect((await write('DELETE', `/webhooks/${e.id}`, p.test_key)).status).toBe(200);
    const replay = await write('POST', `/webhooks/deliveries/${delivered[0].id}/replay`, p.test_key);
    expect(`${replay.status} ${replay.body.code}`).toBe('409 webhook.endpoint.deleted');
    expect(replay.body.details).toEqual({ id: e.id });
    expect((await api('GET', '/webhooks/deliveries', { key: p.test_key })).body.data).toHaveLength(1);
    expect(at(path)).toHaveLength(1);
  });

  it('a receiver always failing ends FAILED after 6 attempts, dead-lettered and listed under status=FAILED; replay then delivers it', async () => {
    const p = await newPartner();
    const tag = randomUUID().slice(0, 8);
    const path = `/always-fail/${tag}`;
    const e = await endpoint(p.test_key, path);
    await book(p);
    const failed = await until(
      async () => (await api('GET', '/webhooks/deliveries?status=FAILED', { key: p.test_key })).body.data,
      (x) => x.length === 1,
      55_000,
    );
    expect(failed[0]).toMatchObject({ endpoint_id: e.id, status: 'FAILED', attempts: 6, last_http_status: 500, next_attempt_at: null });
    expect(failed[0].dead_lettered_at).toBeTruthy();
    expect(at(path)).toHaveLength(6);
    expect((await api('GET', '/webhooks/deliveries?status=PENDING,DELIVERED', { key: p.test_key })).body.data).toHaveLength(0);
    expect((await api('GET', `/webhooks/${e.id}`, { key: p.test_key })).body.last_http_status).toBe(500);

    // A sandbox dead letter stays visible in the log and the metrics, but is not put on the DLQ, whose alarm pages the on-call.
    const onDlq = await deadLetterOf(failed[0].id, 3_000);
    expect(onDlq, 'a sandbox dead letter on the DLQ').toBeUndefined();

    healed.add(path);
    const replay = await write('POST', `/webhooks/deliveries/${failed[0].id}/replay`, p.test_key);
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ event_id: failed[0].event_id, replay_of: failed[0].id, status: 'PENDING' });
    expect(replay.body.id).not.toBe(failed[0].id);
    const hits = await until(
      () => at(path),
      (r) => r.length >= 7,
    );
    expect(hits[6]!.headers['x-service-event-id']).toBe(failed[0].event_id);
    const done = await until(
      async () => (await api('GET', '/webhooks/deliveries?status=DELIVERED', { key: p.test_key })).body.data,
      (x) => x.length === 1,
    );
    expect(done[0].id).toBe(replay.body.id);
  });

  it('a live delivery that exhausts its attempts is put on the DLQ (the alarm that pages the on-call)', async () => {
    const p = await newPartner();
    const path = `/always-fail/live-${randomUUID().slice(0, 8)}`;
    const e = await endpoint(p.live_key, path);
    const L = await packs(p.live_key);
    const q = await quoteFor(p.live_key, L.FLEXIBLE, addDays(localDate(new Date()), 8));
    const booked = await write('POST', '/bookings', p.live_key, bookingBody(q, await signPayment(await livePaymentKey(p.partner_id), paidClaims(q))));
    expect(booked.status, booked.text).toBe(201);
    const failed = await until(
      async () => (await api('GET', `/webhooks/deliveries?status=FAILED&endpoint_id=${e.id}`, { key: p.live_key })).body.data,
      (x) => x.length === 1,
      55_000,
    );
    expect(failed[0]).toMatchObject({ status: 'FAILED', attempts: 6 });
    const dead = await deadLetterOf(failed[0].id, 10_000);
    expect(dead).toMatchObject({ kind: 'dead_letter', delivery_id: failed[0].id, attempts: 6, environment: 'live' });
  });

  it('a worker that died between sending and recording: the sweeper re-drives the attempt (at-least-once)', async () => {
    const p = await newPartner();
    const path = `/ok/died-${randomUUID().slice(0, 8)}`;
    const e = await endpoint(p.test_key, path);
    await book(p);
    const first = (
      await until(
        () => at(path),
        (r) => r.length === 1,
      )
    )[0]!;
    const d = await until(
      async () => (await api('GET', '/webhooks/deliveries', { key: p.test_key })).body.data[0],
      (x) => x?.status === 'DELIVERED',
    );
    // Stage what a crash leaves: attempt 1 claimed long ago, nothing recorded, overdue.
    const { ddb, dataTable } = testDb();
    const past = new Date(Date.now() - 10 * 60_000).toISOString();
    await ddb.send(
      new UpdateCommand({
        TableName: dataTable,
        Key: webhookKeys.delivery(d.id),
        UpdateExpression: 'SET #s = :p, attempts = :z, claimed_attempt = :one, claim_until = :old, next_attempt_at = :past, gsi2pk = :g, gsi2sk = :gs',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':p': 'PENDING',
          ':z': 0,
          ':one': 1,
          ':old': Date.now() - 1000,
          ':past': past,
          ':g': webhookKeys.pendingPartition,
          ':gs': webhookKeys.pending(past, d.id).gsi2sk,
        },
      }),
    );
    await pastIndexLag(); // the command reads through an index
    const swept = await admin(['webhooks:sweep', '--json']);
    expect(swept.json.deliveries).toBeGreaterThanOrEqual(1);
    const again = await until(
      () => at(path),
      (r) => r.length === 2,
    );
    expect(again).toHaveLength(2);
    expect(again[1]!.headers['x-service-event-id']).toBe(first.headers['x-service-event-id']);
    expect(again[1]!.headers['x-service-delivery-id']).not.toBe(first.headers['x-service-delivery-id']);
    // Both attempt ids the receiver saw resolve to the delivery, which lists both attempts.
    for (const h of again) {
      const r = await until(
        async () => (await api('GET', `/webhooks/deliveries/${h.headers['x-service-delivery-id']}`, { key: p.test_key })).body,
        (x) => x?.status === 'DELIVERED',
      );
      expect(r.id).toBe(d.id);
      expect(r.attempt_log.map((a: { id: string }) => a.id)).toEqual(again.map((x) => x.headers['x-service-delivery-id']));
    }
    void e;
  });

  it('a test send whose request died before recording is closed FAILED by the sweeper, without sending again', async () => {
    const p = await newPartner();
    const path = `/ok/test-died-${randomUUID().slice(0, 8)}`;
    const e = await endpoint(p.test_key, path);
    const sent = await write('POST', `/webhooks/${e.id}/test`, p.test_key);
    expect(sent.body.delivered).toBe(true);
    // Stage what a request killed between sending and recording leaves: claimed long ago, nothing recorded.
    const { ddb, dataTable } = testDb();
    const past = new Date(Date.now() - 10 * 60_000).toISOString();
    await ddb.send(
      new UpdateCommand({
        TableName: dataTable,
        Key: webhookKeys.delivery(sent.body.delivery_id),
        UpdateExpression: 'SET #s = :p, attempts = :z, claim_until = :old, next_attempt_at = :past, gsi2pk = :g, gsi2sk = :gs',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':p': 'PENDING',
          ':z': 0,
          ':old': Date.now() - 1000,
          ':past': past,
          ':g': webhookKeys.pendingPartition,
          ':gs': webhookKeys.pending(past, sent.body.delivery_id).gsi2sk,
        },
      }),
    );
    await pastIndexLag(); // the command reads through an index
    expect((await admin(['webhooks:sweep', '--json'])).json.deliveries).toBeGreaterThanOrEqual(1);
    const closed = await until(
      async () => (await api('GET', `/webhooks/deliveries/${sent.body.delivery_id}`, { key: p.test_key })).body,
      (x) => x?.status === 'FAILED',
    );
    expect(closed).toMatchObject({
      status: 'FAILED',
      test_send: true,
      last_error: 'test send interrupted before its result was recorded',
      dead_lettered_at: null,
    });
    expect(at(path)).toHaveLength(1);
  });

  // Attempt 1 made due again, unclaimed, without queueing it; then five workers race for it in this process.
  it.each([
    { state: 'claimed before (its attempt log kept)', removed: 'claimed_attempt, claim_until', log: 2 },
    { state: 'never claimed (one conditional write, no read)', removed: 'claimed_attempt, claim_until, claim_id, attempt_log, last_attempt_id', log: 1 },
  ])('concurrent workers never send the same attempt twice: a first attempt $state', async ({ removed, log }) => {
    const p = await newPartner();
    const path = `/ok/claim-${randomUUID().slice(0, 8)}`;
    await endpoint(p.test_key, path);
    await book(p);
    const first = (
      await until(
        () => at(path),
        (r) => r.length === 1,
      )
    )[0]!;
    const d = await until(
      async () => (await api('GET', '/webhooks/deliveries', { key: p.test_key })).body.data[0],
      (x) => x?.status === 'DELIVERED',
    );
    // The first attempt's id is the delivery's own id: it resolves with no lookup item.
    expect(first.headers['x-service-delivery-id']).toBe(d.id);
    expect((await api('GET', `/webhooks/deliveries/${d.id}`, { key: p.test_key })).body).toMatchObject({
      last_attempt_id: d.id,
      attempt_log: [{ id: d.id, number: 1 }],
    });
    const { ddb, dataTable } = testDb();
    await ddb.send(
      new UpdateCommand({
        TableName: dataTable,
        Key: webhookKeys.delivery(d.id),
        UpdateExpression: `SET #s = :p, attempts = :z REMOVE ${removed}`,
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':p': 'PENDING', ':z': 0 },
      }),
    );
    Object.assign(process.env, readRuntime(inject('stateDir'), inject('port'))!.env);
    const { runAttempt } = await import('../../shared/webhooks/attempt');
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => runAttempt(d.id, 1)));
    expect(outcomes.filter((o) => o === 'sent')).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 500));
    expect(at(path)).toHaveLength(2);
    const after = (await api('GET', `/webhooks/deliveries/${d.id}`, { key: p.test_key })).body;
    expect(after).toMatchObject({ status: 'DELIVERED', attempts: 1 });
    expect(after.attempt_log).toHaveLength(log);
  });

  it('a batch of fan-outs across partners delivers each event once, also when two workers fan the same batch out at once', async () => {
    const [a, b] = [await newPartner(), await newPartner()];
    const pathA = `/ok/batch-a-${randomUUID().slice(0, 8)}`;
    const pathB = `/ok/batch-b-${randomUUID().slice(0, 8)}`;
    await endpoint(a.test_key, pathA, ['adventure.unavailable']);
    await endpoint(b.test_key, pathB, ['adventure.unavailable']);
    Object.assign(process.env, readRuntime(inject('stateDir'), inject('port'))!.env);
    const { recordEvent } = await import('../../shared/events/record');
    const { fanOutAll } = await import('../../shared/webhooks/fanout');
    const { exampleData } = await import('../../shared/webhooks/examples');
    const { ddb, dataTable } = testDb();
    const data = exampleData('adventure.unavailable');
    const events = [a, a, a, b, b].map((p) => recordEvent(p.partner_id, 'test', 'adventure.unavailable', data));
    // One recorded already dispatched (a test send's event): the fan-out leaves it alone.
    const done = recordEvent(a.partner_id, 'test', 'adventure.unavailable', data, new Date(), undefined, { dispatched: true });
    for (const e of [...events, done]) await ddb.send(new PutCommand({ TableName: dataTable, Item: e.item.Put!.Item! }));
    const never = eventKeys.event(a.partner_id, 'test', new Date().toISOString(), randomUUID());
    const refs = [...events, done].map((e) => e.ref);
    // As published right after a commit, the event travels with its request (not read again), even one already dispatched.
    const carried = [events[0]!, events[3]!, done].map((e) => ({ ...e.ref, partner_id: e.partner_id, env: e.env, event: e.event }));
    const [one, two] = await Promise.all([fanOutAll([...carried, ...refs, never]), fanOutAll(refs)]);
    for (const e of events) expect((one.get(`${e.ref.pk}\n${e.ref.sk}`) as number) + (two.get(`${e.ref.pk}\n${e.ref.sk}`) as number)).toBe(1);
    expect(one.get(`${done.ref.pk}\n${done.ref.sk}`)).toBe(0);
    expect(one.get(`${never.pk}\n${never.sk}`)).toBe(0);
    const gotA = await until(
      () => at(pathA),
      (r) => r.length >= 3,
    );
    const gotB = await until(
      () => at(pathB),
      (r) => r.length >= 2,
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(new Set(at(pathA).map((h) => h.headers['x-service-event-id']))).toEqual(new Set(events.slice(0, 3).map((e) => e.event.id)));
    expect(new Set(at(pathB).map((h) => h.headers['x-service-event-id']))).toEqual(new Set(events.slice(3).map((e) => e.event.id)));
    expect([gotA.length, at(pathA).length, at(pathB).length]).toEqual([3, 3, 2]);
    void gotB;
  });

  it("an endpoint's last status never goes back to an earlier answer recorded late", async () => {
    const p = await newPartner();
    const path = `/ok/status-${randomUUID().slice(0, 8)}`;
    const e = await endpoint(p.test_key, path);
    await book(p);
    const shown = await until(
      async () => (await api('GET', `/webhooks/${e.id}`, { key: p.test_key })).body,
      (x) => x?.last_http_status === 200,
    );
    Object.assign(process.env, readRuntime(inject('stateDir'), inject('port'))!.env);
    const { webhookStore } = await import('../../shared/webhooks/store');
    const earlier = new Date(Date.parse(shown.last_delivery_at) - 1000).toISOString();
    await webhookStore.recordEndpointStatus(p.partner_id, 'test', e.id, { http_status: 500, error: 'HTTP 500', at: earlier, delivered: false });
    expect((await api('GET', `/webhooks/${e.id}`, { key: p.test_key })).body).toMatchObject({
      last_http_status: 200,
      last_error: null,
      last_delivery_at: shown.last_delivery_at,
    });
    const later = new Date(Date.parse(shown.last_delivery_at) + 1000).toISOString();
    await webhookStore.recordEndpointStatus(p.partner_id, 'test', e.id, { http_status: 503, error: 'HTTP 503', at: later, delivered: false });
    expect((await api('GET', `/webhooks/${e.id}`, { key: p.test_key })).body).toMatchObject({
      last_http_status: 503,
      last_error: 'HTTP 503',
      last_delivery_at: later,
      failing_since: later,
    });
  });

  it('an event recorded without its fan-out nudge is picked up by the sweeper', async () => {
    const p = await newPartner();
    const path = `/ok/orphan-${randomUUID().slice(0, 8)}`;
    await endpoint(p.test_key, path, ['adventure.unavailable']);
    const { ddb, dataTable } = testDb();
    const created = new Date(Date.now() - 5 * 60_000).toISOString();
    const id = randomUUID();
    await ddb.send(
      new PutCommand({
        TableName: dataTable,
        Item: {
          ...eventKeys.event(p.partner_id, 'test', created, id),
          type: 'event',
          partner_id: p.partner_id,
          env: 'test',
          event: { id, type: 'adventure.unavailable', created_at: created, test: true, data: { adventure_slug: 'x', reason: 'WITHDRAWN' } },
          dispatch: 'PENDING',
          ...eventKeys.pending(created, id),
        },
      }),
    );
    await pastIndexLag(); // the command reads through an index
    await admin(['webhooks:sweep', '--json']);
    const got = await until(
      () => at(path),
      (r) => r.length === 1,
    );
    expect(JSON.parse(got[0]!.raw)).toMatchObject({ id, type: 'adventure.unavailable', test: true });
  });
});

describe('receivers by host name over HTTPS', () => {
  /** An HTTPS receiver on localhost with a certificate from the CA the stack trusts; it records the SNI it was asked for. */
  async function httpsReceiver(cert: { key: string; cert: string }) {
    const hits: { servername: string | false | null; path: string; raw: string; headers: Record<string, string> }[] = [];
    const srv = createHttpsServer(cert, (req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => {
        hits.push({ servername: (req.socket as TLSSocket).servername, path: req.url ?? '/', raw, headers: req.headers as Record<string, string> });
        res.writeHead(req.url?.startsWith('/fail-once') && hits.filter((h) => h.path === req.url).length === 1 ? 500 : 200).end('ok');
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    return { url: `https://localhost:${(srv.address() as AddressInfo).port}`, hits, close: () => new Promise<void>((r) => srv.close(() => r())) };
  }

  it('the test send, a real delivery, a retry and a replay all reach https://localhost, verified against the host name (SNI)', async () => {
    const rx = await httpsReceiver(inject('tls').localhost);
    try {
      const p = await newPartner();
      const created = await write('POST', '/webhooks', p.test_key, { url: `${rx.url}/fail-once/tls`, event_types: ['booking.confirmed'] });
      expect(created.status, created.text).toBe(201);
      const e = created.body as { id: string; signing_secret: string };

      const sent = await write('POST', `/webhooks/${e.id}/test`, p.test_key);
      expect(sent.body, 'the test send meets the 500 of the first call').toMatchObject({ delivered: false, http_status: 500 });
      expect((await write('POST', `/webhooks/${e.id}/test`, p.test_key)).body).toMatchObject({ delivered: true, http_status: 200, error: null });

      await write('PATCH', `/webhooks/${e.id}`, p.test_key, { url: `${rx.url}/fail-once/tls-delivery` });
      const b = await book(p);
      const hits = await until(
        () => rx.hits.filter((h) => h.path === '/fail-once/tls-delivery'),
        (h) => h.length >= 2,
      );
      expect(hits.map((h) => h.headers['x-service-delivery-attempt'])).toEqual(['1', '2']);
      expect(JSON.parse(hits[1]!.raw).data.booking_number).toBe(b.booking_number);
      expect(hits[1]!.headers['x-service-signature']).toBe(createHmac('sha256', e.signing_secret).update(hits[1]!.raw, 'utf8').digest('hex'));

      const delivered = await until(
        async () => (await api('GET', `/webhooks/deliveries?status=DELIVERED&event_id=${JSON.parse(hits[1]!.raw).id}`, { key: p.test_key })).body.data,
        (d) => d.length === 1,
      );
      const replay = await write('POST', `/webhooks/deliveries/${delivered[0].id}/replay`, p.test_key);
      expect(replay.status, replay.text).toBe(202);
      await until(
        () => rx.hits.filter((h) => h.path === '/fail-once/tls-delivery'),
        (h) => h.length >= 3,
      );
      expect(rx.hits.every((h) => h.servername === 'localhost')).toBe(true);
      expect(rx.hits.length).toBe(5);
    } finally {
      await rx.close();
    }
  });

  it('a certificate for another host name fails the handshake: pinning the address never skips the name check', async () => {
    const rx = await httpsReceiver(inject('tls').other);
    try {
      const p = await newPartner();
      const e = await write('POST', '/webhooks', p.test_key, { url: `${rx.url}/ok/wrong-name`, event_types: ['booking.confirmed'] });
      expect(e.status, e.text).toBe(201);
      const sent = await write('POST', `/webhooks/${e.body.id}/test`, p.test_key);
      expect(sent.body).toMatchObject({ delivered: false, http_status: null, error: 'TLS handshake failed' });
      expect(rx.hits).toHaveLength(0);
    } finally {
      await rx.close();
    }
  });
});

describe('signing secret rotation', () => {
  const hmacHex = (secret: string, raw: string) => createHmac('sha256', secret).update(raw, 'utf8').digest('hex');

  it('overlaps: both secrets sign until the overlap ends, a second rotation meanwhile is a 409, overlap 0 revokes at once', async () => {
    const p = await newPartner();
    const a = await endpoint(p.test_key, '/ok/rotate');
    const idem = randomUUID();
    const rotated = await write('POST', `/webhooks/${a.id}/rotate-secret`, p.test_key, {}, { idempotencyKey: idem });
    expect(rotated.status, rotated.text).toBe(200);
    const b = rotated.body.signing_secret as string;
    expect(b).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(b).not.toBe(a.signing_secret);
    const ends = Date.parse(rotated.body.secret_rotation.previous_secret_expires_at);
    expect(Math.abs(ends - (Date.now() + 24 * 3600_000))).toBeLessThan(60_000);
    // Shown once: an idempotent replay and a read never carry a secret.
    expect((await write('POST', `/webhooks/${a.id}/rotate-secret`, p.test_key, {}, { idempotencyKey: idem })).body.signing_secret).toBeNull();
    const read = await api('GET', `/webhooks/${a.id}`, { key: p.test_key });
    expect(read.body.secret_rotation).toEqual(rotated.body.secret_rotation);
    expect(read.text).not.toContain(b.slice(6, 30));
    expect(read.text).not.toContain(a.signing_secret.slice(6, 30));

    expect((await write('POST', `/webhooks/${a.id}/test`, p.test_key)).body.delivered).toBe(true);
    const both = at('/ok/rotate').at(-1)!;
    // A receiver that follows only the spec and still holds the previous secret keeps verifying; the new one is -Next.
    expect(both.headers['x-service-signature']).toBe(hmacHex(a.signing_secret, both.raw));
    expect(both.headers['x-service-signature-next']).toBe(hmacHex(b, both.raw));
    expect(both.headers['x-service-signature-previous']).toBe(hmacHex(a.signing_secret, both.raw));
    expect(both.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of [a.signing_secret, b]) {
      expect(new StandardWebhook(secret).verify(both.raw, both.headers)).toMatchObject({ type: 'booking.confirmed' });
      expect(verifyWebhook(both.raw, both.headers, secret).type).toBe('booking.confirmed');
    }

    const again = await write('POST', `/webhooks/${a.id}/rotate-secret`, p.test_key, { overlap_seconds: 3600 });
    expect(`${again.status} ${again.body.code}`).toBe('409 webhook.secret.rotation_open');
    expect(again.body.details.previous_secret_expires_at).toBe(rotated.body.secret_rotation.previous_secret_expires_at);

    const revoked = await write('POST', `/webhooks/${a.id}/rotate-secret`, p.test_key, { overlap_seconds: 0 });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.secret_rotation).toBeNull();
    const c = revoked.body.signing_secret as string;
    expect((await write('POST', `/webhooks/${a.id}/test`, p.test_key)).body.delivered).toBe(true);
    const only = at('/ok/rotate').at(-1)!;
    expect(only.headers['x-service-signature']).toBe(hmacHex(c, only.raw));
    expect(only.headers['x-service-signature-previous']).toBeUndefined();
    expect(only.headers['x-service-signature-next']).toBeUndefined();
    expect(only.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(new StandardWebhook(c).verify(only.raw, only.headers)).toMatchObject({ type: 'booking.confirmed' });
    for (const old of [a.signing_secret, b]) expect(() => new StandardWebhook(old).verify(only.raw, only.headers)).toThrow(/signature/i);
    // A rotation after the revoke is not blocked: nothing older signs any more.
    expect((await write('POST', `/webhooks/${a.id}/rotate-secret`, p.test_key, { overlap_seconds: 60 })).status).toBe(200);
  });

  it('20 rotations with overlap 0 at once: each answers 200 or a typed 409 with Retry-After (never a 500), and a 409 retried with its key succeeds', async () => {
    const p = await newPartner();
    const e = await endpoint(p.test_key, '/ok/rotate-race');
    const keys = Array.from({ length: 20 }, () => randomUUID());
    const rotate = (k: string) => write('POST', `/webhooks/${e.id}/rotate-secret`, p.test_key, { overlap_seconds: 0 }, { idempotencyKey: k });
    let answers = await Promise.all(keys.map(rotate));
    const outcome = () => answers.map((r) => `${r.status} ${r.status === 200 ? '' : r.body.code}`);
    expect(
      outcome().every((o) => o === '200 ' || o === '409 webhook.secret.rotation_conflict'),
      outcome().join(),
    ).toBe(true);
    expect(answers.filter((r) => r.status === 409).every((r) => r.headers.get('retry-after') === '1')).toBe(true);
    for (let round = 0; round < 5 && answers.some((r) => r.status === 409); round++) {
      await new Promise((r) => setTimeout(r, 1000));
      answers = await Promise.all(answers.map((r, i) => (r.status === 409 ? rotate(keys[i]!) : r)));
    }
    expect(outcome()).toEqual(Array(20).fill('200 '));
    // Each rotation minted its own secret.
    expect(new Set(answers.map((r) => r.body.signing_secret)).size).toBe(20);
  });

  it('bounds the overlap, refuses unknown fields, is scoped to the partner, and signs live rotations like any live write', async () => {
    const p = await newPartner();
    const e = await endpoint(p.test_key, '/ok/rotate-bounds');
    for (const body of [{ overlap_seconds: 604_801 }, { overlap_seconds: -1 }, { overlap_seconds: 1.5 }, { overlap: 10 }]) {
      const r = await write('POST', `/webhooks/${e.id}/rotate-secret`, p.test_key, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    // Two rotations racing: the write is conditional on the secret read, so exactly one wins.
    const race = await Promise.all([1, 2, 3].map(() => write('POST', `/webhooks/${e.id}/rotate-secret`, p.test_key, { overlap_seconds: 604_800 })));
    expect(race.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect((await write('POST', `/webhooks/${e.id}/rotate-secret`, (await newPartner()).test_key, {})).status).toBe(404);
    expect((await write('POST', `/webhooks/${e.id}/rotate-secret`, p.live_key, {})).status, 'another environment').toBe(404);
    const live = await endpoint(p.live_key, '/ok/rotate-live');
    const r = await write('POST', `/webhooks/${live.id}/rotate-secret`, p.live_key, { overlap_seconds: 0 });
    expect(r.status, r.text).toBe(200);
    const unsigned = await api('POST', `/webhooks/${live.id}/rotate-secret`, {
      key: p.live_key,
      body: {},
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(unsigned.status).toBe(401);
  });
});

describe('endpoint health: warning, auto-disable, re-enable', () => {
  const mailsTo = async (to: string) => (await admin(['mail:list', '--to', to, '--json'])).json.data as { subject: string; text: string }[];
  const admins = async (p: Awaited<ReturnType<typeof newPartner>>) =>
    ((await api('GET', '/team/members', { key: p.test_key })).body.data as { email: string; role: string }[])
      .filter((m) => m.role === 'PARTNER_ADMIN')
      .map((m) => m.email);

  it('a failing endpoint is warned after 24 h and disabled after 5 days of failures (aged by the sandbox helper); deliveries stay; ACTIVE again starts afresh', async () => {
    const p = await newPartner();
    const tag = randomUUID().slice(0, 8);
    const path = `/always-fail/${tag}`;
    const e = await endpoint(p.test_key, path);
    const [adminEmail] = await admins(p);
    await book(p);
    const failing = await until(
      async () => (await api('GET', `/webhooks/${e.id}`, { key: p.test_key })).body,
      (x) => x.failing_since !== null,
    );
    expect(failing).toMatchObject({ status: 'ACTIVE', disabled_reason: null, last_http_status: 500, last_error: 'HTTP 500' });
    // The list says so too, with the deliveries waiting for a retry (read from an index: polled).
    const listed = await until(
      async () => (await api('GET', '/webhooks', { key: p.test_key })).body,
      (l) => l?.data?.[0]?.pending_deliveries > 0,
    );
    expect(listed).toMatchObject({ pending_complete: true, data: [{ id: e.id, failing_since: failing.failing_since, last_error: 'HTTP 500' }] });
    expect(await mailsTo(adminEmail!)).toHaveLength(0);

    // 25 hours of failures: the next failed attempt warns the team once.
    const aged = await write('POST', `/test-helpers/webhooks/${e.id}/age-failures`, p.test_key, { hours: 25 });
    expect(aged.status, aged.text).toBe(200);
    await book(p);
    const warned = await until(
      () => mailsTo(adminEmail!),
      (m) => m.length >= 1,
    );
    // Judged at the failed attempt's own time: a retry of the first booking answered just before the aging says 24.
    expect(warned[0]!.subject).toMatch(/^\[TEST\] Webhook endpoint failing for 2[45] hours$/);
    expect(warned[0]!.text).toContain(`localhost:`);
    expect((await api('GET', `/webhooks/${e.id}`, { key: p.test_key })).body.status).toBe('ACTIVE');

    // 121 hours: disabled, its subscriptions dropped, the team told; nothing deleted.
    await write('POST', `/test-helpers/webhooks/${e.id}/age-failures`, p.test_key, { hours: 121 });
    await book(p);
    const disabled = await until(
      async () => (await api('GET', `/webhooks/${e.id}`, { key: p.test_key })).body,
      (x) => x.status === 'DISABLED',
    );
    expect(disabled).toMatchObject({ status: 'DISABLED', disabled_reason: 'failing' });
    const told = await until(
      () => mailsTo(adminEmail!),
      (m) => m.some((x) => x.subject.includes('disabled')),
    );
    expect(told.map((m) => m.subject)).toContain('[TEST] Webhook endpoint disabled after 5 days of failures');
    const sent = at(path).length;
    await book(p);
    await new Promise((r) => setTimeout(r, 1500));
    expect(at(path).length, 'a disabled endpoint receives nothing').toBe(sent);
    // Nothing deleted: the failed deliveries of the first two bookings stay in the log (the third may have found it disabled).
    expect((await api('GET', `/webhooks/deliveries?endpoint_id=${e.id}`, { key: p.test_key })).body.data.length).toBeGreaterThanOrEqual(2);

    healed.add(path);
    const back = await write('PATCH', `/webhooks/${e.id}`, p.test_key, { status: 'ACTIVE' });
    expect(back.body).toMatchObject({ status: 'ACTIVE', disabled_reason: null, disabled_at: null, failing_since: null });
    await book(p);
    await until(
      () => at(path).length,
      (n) => n > sent,
    );
    const manual = await write('PATCH', `/webhooks/${e.id}`, p.test_key, { status: 'DISABLED' });
    expect(manual.body).toMatchObject({ status: 'DISABLED', disabled_reason: 'manual' });
  });

  it('a success ends the streak; the helper is sandbox only and scoped', async () => {
    const p = await newPartner();
    const e = await endpoint(p.test_key, '/ok/healthy');
    await write('POST', `/test-helpers/webhooks/${e.id}/age-failures`, p.test_key, { hours: 10 });
    await book(p);
    const healthy = await until(
      async () => (await api('GET', `/webhooks/${e.id}`, { key: p.test_key })).body,
      (x) => x.failing_since === null,
    );
    expect(healthy.status).toBe('ACTIVE');
    expect((await write('POST', `/test-helpers/webhooks/${e.id}/age-failures`, p.live_key, { hours: 10 })).status).toBe(404);
    expect((await write('POST', `/test-helpers/webhooks/${e.id}/age-failures`, (await newPartner()).test_key, { hours: 10 })).status).toBe(404);
    expect((await write('POST', `/test-helpers/webhooks/${e.id}/age-failures`, p.test_key, { hours: -1 })).status).toBe(400);
  });
});

describe('recover', () => {
  it('re-enables if asked and re-sends each event the endpoint failed to receive since a time, once; calling again sends nothing', async () => {
    const p = await newPartner();
    const path = `/always-fail/recover-${randomUUID().slice(0, 8)}`;
    const e = await endpoint(p.test_key, path);
    const since = new Date(Date.now() - 1000).toISOString();
    await book(p);
    await book(p);
    const failed = await until(
      async () => (await api('GET', `/webhooks/deliveries?status=FAILED&endpoint_id=${e.id}`, { key: p.test_key })).body.data as { event_id: string }[],
      (x) => x.length === 2,
      55_000,
    );
    expect(failed).toHaveLength(2);
    await write('PATCH', `/webhooks/${e.id}`, p.test_key, { status: 'DISABLED' });
    const refused = await write('POST', `/webhooks/${e.id}/recover`, p.test_key, { since });
    expect(`${refused.status} ${refused.body.code}`).toBe('409 webhook.endpoint.disabled');

    healed.add(path);
    const idem = randomUUID();
    const r = await write('POST', `/webhooks/${e.id}/recover`, p.test_key, { since, enable: true }, { idempotencyKey: idem });
    expect(r.status, r.text).toBe(202);
    expect(r.body).toMatchObject({ since, resent: 2, truncated: false, endpoint: { id: e.id, status: 'ACTIVE', disabled_reason: null } });
    const hits = await until(
      () =>
        at(path)
          .filter((h) => h.headers['x-service-delivery-attempt'] === '1')
          .map((h) => h.headers['x-service-event-id']),
      (ids) => new Set(ids).size === 2 && ids.length >= 4,
    );
    expect(new Set(hits)).toEqual(new Set(failed.map((f) => f.event_id)));
    // The same key answers the first answer; a new call finds nothing left to re-send.
    expect((await write('POST', `/webhooks/${e.id}/recover`, p.test_key, { since, enable: true }, { idempotencyKey: idem })).body.resent).toBe(2);
    expect((await write('POST', `/webhooks/${e.id}/recover`, p.test_key, { since })).body.resent).toBe(0);
    expect((await write('POST', `/webhooks/${e.id}/recover`, p.test_key, { since: new Date().toISOString() })).body.resent).toBe(0);
    expect((await write('POST', `/webhooks/${e.id}/recover`, p.test_key, { since: 'yesterday' })).status).toBe(400);
    expect((await write('POST', `/webhooks/${e.id}/recover`, (await newPartner()).test_key, { since })).status).toBe(404);
  });

  it('brings forward a retry that is waiting (attempted now, once, not again at its scheduled time); parallel recovers count it once', async () => {
    const p = await newPartner();
    const path = `/always-fail/recover-forward-${randomUUID().slice(0, 8)}`;
    const e = await endpoint(p.test_key, path);
    const since = new Date(Date.now() - 1000).toISOString();
    await book(p);
    // Five attempts failed: the sixth waits 24 h (8.6 s at this stack's WEBHOOK_WAIT_SCALE).
    type Delivery = { id: string; status: string; attempts: number; next_attempt_at: string | null };
    const deliveries = async () => (await api('GET', `/webhooks/deliveries?endpoint_id=${e.id}`, { key: p.test_key })).body.data as Delivery[];
    const [waiting] = await until(deliveries, (x) => x.length === 1 && x[0]!.attempts === 5 && x[0]!.status === 'PENDING', 55_000);
    expect(waiting).toMatchObject({ attempts: 5, status: 'PENDING' });
    const scheduled = Date.parse(waiting!.next_attempt_at!);
    expect(scheduled - Date.now()).toBeGreaterThan(3000);
    healed.add(path);
    const answers = await Promise.all([0, 1, 2].map(() => write('POST', `/webhooks/${e.id}/recover`, p.test_key, { since })));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
    expect(answers.reduce((n, a) => n + (a.body.brought_forward as number), 0)).toBe(1);
    expect(answers.reduce((n, a) => n + (a.body.resent as number), 0)).toBe(0);
    const sixth = () => at(path).filter((h) => h.headers['x-service-delivery-attempt'] === '6');
    await until(sixth, (x) => x.length === 1, 20_000);
    expect(sixth()[0]!.at).toBeLessThan(scheduled);
    // Past the time it was scheduled for: the retry finds its attempt made, and sends nothing again.
    await new Promise((r) => setTimeout(r, Math.max(0, scheduled - Date.now()) + 2500));
    expect(sixth()).toHaveLength(1);
    const detail = await api('GET', `/webhooks/deliveries/${waiting!.id}`, { key: p.test_key });
    expect(detail.body).toMatchObject({ status: 'DELIVERED', attempts: 6 });
  });

  it('parallel recovers, each with its own key, re-send each failed event once between them', async () => {
    const p = await newPartner();
    const path = `/always-fail/recover-race-${randomUUID().slice(0, 8)}`;
    const e = await endpoint(p.test_key, path);
    const since = new Date(Date.now() - 1000).toISOString();
    for (let i = 0; i < 3; i++) await book(p);
    const failed = await until(
      async () => (await api('GET', `/webhooks/deliveries?status=FAILED&endpoint_id=${e.id}`, { key: p.test_key })).body.data as { event_id: string }[],
      (x) => x.length === 3,
      55_000,
    );
    expect(failed).toHaveLength(3);
    const answers = await Promise.all([0, 1, 2].map(() => write('POST', `/webhooks/${e.id}/recover`, p.test_key, { since })));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
    expect(answers.reduce((n, a) => n + (a.body.resent as number), 0)).toBe(3);
    // Each event has its original delivery and exactly one re-send, once the (lagging) index shows them all.
    const all = async () => (await api('GET', `/webhooks/deliveries?endpoint_id=${e.id}&limit=100`, { key: p.test_key })).body.data as { event_id: string }[];
    await until(all, (x) => x.length >= 6);
    await new Promise((r) => setTimeout(r, 1500));
    const perEvent = new Map<string, number>();
    for (const d of await all()) perEvent.set(d.event_id, (perEvent.get(d.event_id) ?? 0) + 1);
    expect([...perEvent.values()]).toEqual([2, 2, 2]);
  });
});
