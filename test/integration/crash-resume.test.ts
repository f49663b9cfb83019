import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockKeys } from '../../shared/clock/keys';
import { addDays, localDate, localToInstant } from '../../shared/kernel/time';
import { bookingBody, paidClaims, signPayment } from './booking-helpers';
import { BOOT_HOOK_MS, OwnStack } from './own-stack';

/**
 * After a crash, everything resumes by itself (issue 41, 6): a stack of its own is killed as a crash kills it
 * (SIGKILL to its node process and its DynamoDB Local) in the middle of what the issue found left behind, then
 * started again as docs/operations/recovery.md says. What was interrupted must go on without anyone asking:
 * sandbox clock advances (one mid-way, one stopped at its `to`), the request log of the last second, and the
 * queues' work once the stack stopped itself because a queue was deleted.
 */
let stack: OwnStack;
const received: { path: string; type: string; booking?: string }[] = [];
/** Holds each delivery the milliseconds its path names (/hold/6000): an attempt in flight keeps an advance's instant open. */
const receiver = createServer((req: IncomingMessage, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    const e = JSON.parse(body) as { type: string; data?: { booking_number?: string } };
    received.push({ path: req.url ?? '', type: e.type, booking: e.data?.booking_number });
    setTimeout(() => res.writeHead(200).end('ok'), Number(/^\/hold\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0));
  });
});
const receiverUrl = (path: string) => `http://localhost:${(receiver.address() as AddressInfo).port}${path}`;

beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  stack = await OwnStack.start('crash-resume', {});
}, BOOT_HOOK_MS);
afterAll(async () => {
  await stack?.stop();
  receiver.close();
}, 30_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const iso = (ms: number) => new Date(ms).toISOString();
const until = async <T>(read: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await sleep(250);
  }
};
/** When the clock passing a travel date completes the booking: the next day, 00:00 Morocco time (shared/clock/play.ts). */
const completionAt = (travelDate: string) => localToInstant(addDays(travelDate, 1)).getTime();
/** The clock once it is ready again (or as it is after `ms`). */
const readyClock = (key: string, ms: number) =>
  until(
    () => clockOf(key),
    (c) => c.status === 'ready',
    ms,
  );
const clockOf = async (key: string) =>
  (await stack.call('GET', '/test-helpers/clock', key)).body as { now: string; status: string; advancing_to: string | null };

/** A sandbox partner with bookings travelling `days` from today, whose booking.completed its endpoint at `path` receives. */
async function bookedPartner(name: string, path: string, days: number[]) {
  const p = await stack.sandboxPartner(name);
  const wh = await stack.call('POST', '/webhooks', p.key, { url: receiverUrl(path), event_types: ['booking.completed'] });
  expect(wh.status, JSON.stringify(wh.body)).toBe(201);
  const bookings: { number: string; travelDate: string }[] = [];
  for (const d of days) {
    const q = await stack.call('POST', '/quotes', p.key, {
      rate_pack_id: p.pack.id,
      start_date: addDays(localDate(new Date()), d),
      start_time: null,
      travelers: [{ age: 30 }],
    });
    expect(q.status, JSON.stringify(q.body)).toBe(201);
    const b = await stack.call('POST', '/bookings', p.key, bookingBody(q.body, await signPayment(p.jwk, paidClaims(q.body))));
    expect(b.status, JSON.stringify(b.body)).toBe(201);
    bookings.push({ number: b.body.booking_number, travelDate: b.body.travel_date });
  }
  return { ...p, bookings };
}

describe('after a crash, the local stack resumes by itself', () => {
  it('an advance killed mid-way and one killed at its `to` both end after the restart, a same-key retry answers the clock as it stands, and the request log keeps the last second', async () => {
    // A: three trips completing on three days, each instant held 6 s by its webhook (at least 18 s of advance).
    const a = await bookedPartner('Crash A', '/hold/6000', [2, 3, 4]);
    const toA = completionAt(a.bookings[2]!.travelDate);
    // B: one trip completing at the advance's `to`, held 8 s there.
    const b = await bookedPartner('Crash B', '/hold/8000', [2]);
    const toB = completionAt(b.bookings[0]!.travelDate);

    const keyA = randomUUID();
    const firstA = await stack.call('POST', '/test-helpers/clock/advance', a.key, { to: iso(toA) }, keyA);
    expect(firstA.status, JSON.stringify(firstA.body)).toBe(200);
    expect(firstA.body.status).toBe('advancing');
    void stack.call('POST', '/test-helpers/clock/advance', b.key, { to: iso(toB) }).catch(() => undefined);
    const atTo = await until(
      () => clockOf(b.key),
      (c) => c.status === 'advancing' && c.now === iso(toB),
      30_000,
    );
    expect(atTo).toMatchObject({ status: 'advancing', now: iso(toB) });

    // The last second before the crash: reads and writes, each acknowledged with its request id.
    const acknowledged: { id: string; key: string }[] = [];
    const calls = [
      ...Array.from({ length: 30 }, () => ({ key: a.key, method: 'GET', path: '/me', body: undefined as unknown })),
      ...Array.from({ length: 5 }, () => ({
        key: b.key,
        method: 'POST',
        path: '/webhooks',
        body: { url: receiverUrl('/ok'), event_types: ['adventure.unavailable'] },
      })),
    ];
    await Promise.all(
      calls.map(async (c) => {
        const r = await stack.call(c.method, c.path, c.key, c.body);
        expect(r.status).toBeLessThan(300);
        acknowledged.push({ id: r.headers.get('x-request-id')!, key: c.key });
      }),
    );
    // Both advances are still playing when the stack dies.
    expect((await clockOf(a.key)).status).toBe('advancing');
    expect(await clockOf(b.key)).toMatchObject({ status: 'advancing', now: iso(toB) });
    await stack.crash();

    await stack.restart();
    expect(stack.output()).toMatch(/Recovered\s+2 sandbox clock advance\(s\) left playing by the last run, resumed now/);

    // The same key again: the advance as it stands now (further than the first answer), not that first answer.
    const retried = await stack.call('POST', '/test-helpers/clock/advance', a.key, { to: iso(toA) }, keyA);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(Date.parse(retried.body.now)).toBeGreaterThan(Date.parse(firstA.body.now));

    for (const [p, to] of [
      [a, toA],
      [b, toB],
    ] as const) {
      const c = await readyClock(p.key, 120_000);
      expect(c.status).toBe('ready');
      expect(Date.parse(c.now)).toBeGreaterThanOrEqual(to);
    }
    const completed = (path: string) => new Set(received.filter((r) => r.path === path && r.type === 'booking.completed').map((r) => r.booking));
    await until(
      async () => completed('/hold/6000').size + completed('/hold/8000').size,
      (n) => n >= 4,
      30_000,
    );
    expect([...completed('/hold/6000')].sort()).toEqual(a.bookings.map((x) => x.number).sort());
    expect([...completed('/hold/8000')]).toEqual([b.bookings[0]!.number]);

    // Every acknowledged request of the last second is in the request log, delivered from the crashed run's file.
    const missing = async () => {
      const out: string[] = [];
      for (const r of acknowledged) if ((await stack.call('GET', `/request-logs/${r.id}`, r.key)).status !== 200) out.push(r.id);
      return out;
    };
    expect(acknowledged).toHaveLength(35);
    expect(await until(missing, (m) => m.length === 0, 30_000)).toEqual([]);
  }, 420_000);

  it('an advance idle for 2 minutes is resumed by the sweeper, and one stopped at its `to` completes on a new advance to that `to`', async () => {
    const env = stack.runtimeEnv();
    const doc = DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: 'us-east-1', endpoint: env.AWS_ENDPOINT_URL_DYNAMODB, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    );
    /** What a worker that died (or whose message was lost) leaves: the clock advancing at `at` toward `to`, its last step 3 minutes ago. */
    const stall = async (partnerId: string, at: number, to: number) => {
      const idle = iso(Date.now() - 180_000);
      await doc.send(
        new UpdateCommand({
          TableName: env.DATA_TABLE,
          Key: clockKeys.clock(partnerId),
          UpdateExpression:
            'SET partner_id = :p, offset_ms = :z, #s = :a, frozen_at = :at, advanced_from = :at, advancing_to = :to, advance_id = :id, heartbeat_at = :h, updated_at = :h, gsi1pk = :gp, gsi1sk = :gs',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: {
            ':p': partnerId,
            ':z': 0,
            ':a': 'advancing',
            ':at': iso(at),
            ':to': iso(to),
            ':id': `dead-${randomUUID()}`,
            ':h': idle,
            ...Object.fromEntries(Object.entries(clockKeys.advancing(idle, partnerId)).map(([k, v]) => [k === 'gsi1pk' ? ':gp' : ':gs', v])),
          },
        }),
      );
    };
    const partner = async (name: string) => {
      const p = await stack.sandboxPartner(name);
      return { ...p, id: (await stack.call('GET', '/me', p.key)).body.partner.id as string };
    };

    // In AWS its message stays invisible for 90 minutes: the sweeper (every 5 minutes) takes it over.
    const idle = await partner('Idle Bank');
    const idleTo = Date.now() + 86_400_000;
    await stall(idle.id, Date.now(), idleTo);
    expect(await stack.admin(['job:run', '--job', 'webhookSweeper'])).toMatchObject({ result: expect.objectContaining({ advances: 1 }) });
    const resumed = await readyClock(idle.key, 60_000);
    expect(resumed.status).toBe('ready');
    expect(Date.parse(resumed.now)).toBeGreaterThanOrEqual(idleTo);

    // Stopped on its last instant (the clock at `to`, still advancing): a new advance to that `to` completes it.
    const last = await partner('Last Instant Bank');
    const lastTo = Date.now() + 3_600_000;
    await stall(last.id, lastTo, lastTo);
    const again = await stack.call('POST', '/test-helpers/clock/advance', last.key, { to: iso(lastTo) });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const done = await readyClock(last.key, 60_000);
    expect(done.status).toBe('ready');
    expect(Date.parse(done.now)).toBeGreaterThanOrEqual(lastTo);
  }, 180_000);

  it('a queue deleted from the SQS server stops the stack, naming it; the restart creates it again and delivers what was pending', async () => {
    const p = await stack.sandboxPartner('Lost Queue Bank');
    const wh = await stack.call('POST', '/webhooks', p.key, { url: receiverUrl('/confirmed'), event_types: ['booking.confirmed'] });
    expect(wh.status).toBe(201);
    const q = await stack.call('POST', '/quotes', p.key, {
      rate_pack_id: p.pack.id,
      start_date: addDays(localDate(new Date()), 5),
      start_time: null,
      travelers: [{ age: 30 }],
    });
    expect(q.status, JSON.stringify(q.body)).toBe(201);
    const env = stack.runtimeEnv();
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: env.AWS_ENDPOINT_URL_SQS, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await sqs.send(new DeleteQueueCommand({ QueueUrl: env.WEBHOOK_QUEUE_URL }));
    // A booking in the moment before the stack notices: answered 201, or refused as the stack stops.
    const booked = await stack
      .call('POST', '/bookings', p.key, bookingBody(q.body, await signPayment(p.jwk, paidClaims(q.body))))
      .catch(() => ({ status: 0, body: undefined }));

    const code = await Promise.race([stack.exited, sleep(15_000).then(() => 'still running')]);
    expect(code, stack.output().slice(-3000)).toBe(1);
    expect(stack.output()).toContain('The local SQS server no longer has the queue(s) webhooks');
    expect(stack.output()).toContain("Start it again with 'npm start'");

    await stack.restart();
    if (booked.status === 201) {
      const got = await until(
        async () => received.filter((r) => r.path === '/confirmed' && r.booking === booked.body.booking_number),
        (r) => r.length > 0,
        30_000,
      );
      expect(got.map((r) => r.type)).toEqual(['booking.confirmed']);
    }
    // The restarted stack has the queue again: a new booking's event arrives.
    const q2 = await stack.call('POST', '/quotes', p.key, {
      rate_pack_id: p.pack.id,
      start_date: addDays(localDate(new Date()), 6),
      start_time: null,
      travelers: [{ age: 30 }],
    });
    const b2 = await stack.call('POST', '/bookings', p.key, bookingBody(q2.body, await signPayment(p.jwk, paidClaims(q2.body))));
    expect(b2.status, JSON.stringify(b2.body)).toBe(201);
    const got2 = await until(
      async () => received.filter((r) => r.path === '/confirmed' && r.booking === b2.body.booking_number),
      (r) => r.length > 0,
      30_000,
    );
    expect(got2).toHaveLength(1);
  }, 240_000);
});
