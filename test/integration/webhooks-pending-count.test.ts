import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import { webhookKeys } from '../../shared/webhooks/keys';
import { PENDING_SHARDS } from '../../shared/webhooks/store';
import { bookingBody, packs, paidClaims, quoteFor, sandboxPaymentKey, signPayment } from './booking-helpers';
import { api, newPartner, pastIndexLag, testDb, until, write } from './helpers';

/**
 * pending_deliveries of GET /v1/webhooks: each endpoint's count of PENDING deliveries, changed in the transactions
 * that change a delivery's status (shared/webhooks/store.ts). The test stack's indexes lag their writes by 750 ms
 * (LOCAL_GSI_LAG_MS), so a figure read from the pending index right after a change is wrong; the count is not.
 */

// A receiver that holds every request until the test answers it: a delivery stays PENDING while its attempt is held.
interface Held {
  path: string;
  deliveryId: string;
  attempt: number;
  res: ServerResponse<IncomingMessage>;
  /** The service gave up waiting (its 10 s timeout): that attempt failed. */
  gone: boolean;
}
const held: Held[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const h = req.headers as Record<string, string>;
      const entry: Held = { path: req.url ?? '/', deliveryId: h['x-service-delivery-id']!, attempt: Number(h['x-service-delivery-attempt']), res, gone: false };
      res.on('close', () => (entry.gone = true));
      held.push(entry);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://localhost:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  for (const h of held.splice(0)) if (!h.gone && !h.res.headersSent) h.res.writeHead(200).end('ok');
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

const heldAt = (path: string) => held.filter((h) => h.path === path && !h.gone && !h.res.writableEnded);
/** The deliveries whose attempt is held at `path`. */
const heldDeliveries = (path: string) => [...new Set(heldAt(path).map((h) => h.deliveryId))];

/** Answers the attempts held at `path` (the first `n` of them) with `status`. */
function answer(path: string, status: number, n = Infinity) {
  for (const h of heldAt(path).slice(0, n)) h.res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'nope');
}

type Partner = Awaited<ReturnType<typeof newPartner>>;
let P: Awaited<ReturnType<typeof packs>> | undefined;

async function book(p: Partner, dayOffset: number) {
  P ??= await packs(p.test_key);
  const q = await quoteFor(p.test_key, P.FLEXIBLE, addDays(localDate(new Date()), 8 + dayOffset));
  const r = await write('POST', '/bookings', p.test_key, bookingBody(q, await signPayment(await sandboxPaymentKey(p.partner_id), paidClaims(q))));
  expect(r.status, r.text).toBe(201);
}

async function endpoint(p: Partner, path: string) {
  const r = await write('POST', '/webhooks', p.test_key, { url: `${base}${path}`, event_types: ['booking.confirmed'] });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string };
}

/** The list's figure for the endpoint, read once (no polling: it must be right at once). */
async function pendingOf(p: Partner, id: string): Promise<number | undefined> {
  const r = await api('GET', '/webhooks', { key: p.test_key });
  expect(r.status, r.text).toBe(200);
  return (r.body.data as { id: string; pending_deliveries: number }[]).find((e) => e.id === id)?.pending_deliveries;
}

/** Every delivery named DELIVERED, read one by one (GetItem, strongly consistent). */
const allDelivered = async (p: Partner, ids: string[]) =>
  (await Promise.all(ids.map(async (id) => (await api('GET', `/webhooks/deliveries/${id}`, { key: p.test_key })).body.status))).every((s) => s === 'DELIVERED');

const { ddb, dataTable } = testDb();
/** The endpoint's count items, read strongly consistent: its marker (PENDING#<endpoint>) and its shards (PENDING#<endpoint>#<n>). */
const countItems = async (p: Partner, id: string) =>
  (
    await ddb.send(
      new QueryCommand({
        TableName: dataTable,
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
        ExpressionAttributeValues: { ':p': webhookKeys.endpointsPartition(p.partner_id, 'test'), ':s': webhookKeys.pendingCount(p.partner_id, 'test', id).sk },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];
/** The count as the list sums it: its shards' sum, exact when the endpoint's marker says so. */
const counted = async (p: Partner, id: string) => {
  const items = await countItems(p, id);
  return { pending: items.reduce((n, i) => n + Number(i.pending ?? 0), 0), exact: items.some((i) => i.exact === true) };
};

describe('pending_deliveries: an exact count per endpoint', () => {
  it('parallel deliveries to one endpoint: N while their attempts are in flight or waiting, 0 the moment they settle; a replay counts at once', async () => {
    const p = await newPartner();
    const path = `/held/${randomUUID().slice(0, 8)}`;
    const e = await endpoint(p, path);
    expect(await pendingOf(p, e.id)).toBe(0);
    const N = 6;
    await Promise.all(Array.from({ length: N }, (_, i) => book(p, i)));
    // Every first attempt is at the receiver, held: N deliveries PENDING.
    await until(
      () => heldDeliveries(path).length,
      (n) => n === N,
      45_000,
    );
    expect(await pendingOf(p, e.id)).toBe(N);
    const ids = heldDeliveries(path);
    // All fail at once: each waits for a retry, still PENDING (N outcomes recorded in parallel, none settling).
    answer(path, 500);
    await until(
      () => heldDeliveries(path).length,
      (n) => n === N,
      45_000,
    );
    expect(await pendingOf(p, e.id)).toBe(N);
    // The retries all succeed at once: N outcomes settle the same count in parallel. Read as soon as the last is
    // DELIVERED (within the index's lag): 0, not the index's stale figure.
    answer(path, 200);
    await until(
      () => allDelivered(p, ids),
      (done) => done,
      45_000,
    );
    expect(await pendingOf(p, e.id)).toBe(0);
    expect(await counted(p, e.id)).toEqual({ pending: 0, exact: true });
    // The changes went to shards picked at random, not all to one item (all on one: about 1 chance in 16^6).
    expect(new Set((await countItems(p, e.id)).map((i) => i.sk)).size).toBeGreaterThan(2);

    // A replay's new delivery is counted in the transaction that creates it: 1 at once, while the index shows nothing yet.
    const replayed = await write('POST', `/webhooks/deliveries/${ids[0]}/replay`, p.test_key, {});
    expect(replayed.status, replayed.text).toBe(202);
    expect(await pendingOf(p, e.id)).toBe(1);
    await until(
      () => heldDeliveries(path).length,
      (n) => n === 1,
      45_000,
    );
    answer(path, 200);
    await until(
      () => allDelivered(p, [replayed.body.id]),
      (done) => done,
      45_000,
    );
    expect(await pendingOf(p, e.id)).toBe(0);

    // Deleted with the endpoint: its count expires a week later (an attempt still in flight may settle on it meanwhile).
    expect((await write('DELETE', `/webhooks/${e.id}`, p.test_key)).status).toBe(200);
    const gone = await countItems(p, e.id);
    expect(gone).toHaveLength(1 + PENDING_SHARDS);
    for (const i of gone) {
      expect(i.ttl).toBeGreaterThan(Date.now() / 1000 + 6 * 86_400);
      expect(i.ttl).toBeLessThan(Date.now() / 1000 + 8 * 86_400);
    }
  }, 180_000);

  it('an endpoint created before the counts (no count item): its figure comes from the pending index, as before', async () => {
    const p = await newPartner();
    const path = `/held/${randomUUID().slice(0, 8)}`;
    const e = await endpoint(p, path);
    await Promise.all([book(p, 0), book(p, 1)]);
    await until(
      () => heldDeliveries(path).length,
      (n) => n === 2,
      45_000,
    );
    // As an endpoint of before: its deliveries exist, its count does not. A settling delivery then makes a count
    // (ADD) that started from nothing: -1, not exact, never shown.
    for (const i of await countItems(p, e.id)) await ddb.send(new DeleteCommand({ TableName: dataTable, Key: { pk: i.pk, sk: i.sk } }));
    const [first] = heldAt(path);
    answer(path, 200, 1);
    await until(
      () => allDelivered(p, [first!.deliveryId]),
      (done) => done,
      45_000,
    );
    expect(await counted(p, e.id)).toEqual({ pending: -1, exact: false });
    // The index catches up after its lag (longer than the stack's nominal 750 ms on a loaded machine).
    await pastIndexLag();
    const listed = await until(
      async () => (await api('GET', '/webhooks', { key: p.test_key })).body,
      (b) => b.data?.[0]?.pending_deliveries === 1,
      15_000,
    );
    expect(listed).toMatchObject({ pending_complete: true, data: [{ id: e.id, pending_deliveries: 1 }] });
    answer(path, 200);
  }, 120_000);
});
