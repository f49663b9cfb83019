import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import { RETRY_WAITS_SECONDS } from '../../shared/webhooks/schedule';
import { bookingBody, paidClaims, signPayment } from './booking-helpers';
import { BOOT_HOOK_MS, OwnStack } from './own-stack';

/**
 * The sandbox clock and webhooks, in a stack of its own whose retries wait their real times
 * (WEBHOOK_WAIT_SCALE=1, where the shared stack waits 0.0001 of them): a retry that happens in this
 * file's seconds happened because the clock reached it, and nothing else.
 */
let stack: OwnStack;
/** A receiver that answers 503 to everything, and counts what it got. */
let down: { url: string; hits: number; close: () => Promise<void> };

beforeAll(async () => {
  stack = await OwnStack.start('clock', { WEBHOOK_WAIT_SCALE: '1' });
  let hits = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits++;
      res.writeHead(503).end('down');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  down = {
    url: `http://localhost:${(server.address() as AddressInfo).port}/hooks`,
    get hits() {
      return hits;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}, BOOT_HOOK_MS);

afterAll(async () => {
  await down?.close();
  await stack?.stop();
}, 30_000);

const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Advances the partner's clock to `to` and waits until it is ready again; the clock as it then is. */
async function advance(key: string, to: Date) {
  const r = await stack.call('POST', '/test-helpers/clock/advance', key, { to: to.toISOString() });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  let clock = r.body;
  for (let i = 0; clock.status !== 'ready' && i < 600; i++) {
    await sleep(500);
    clock = (await stack.call('GET', '/test-helpers/clock', key)).body;
  }
  expect(clock.status).toBe('ready');
  return clock as { now: string; advanced_by_seconds: number };
}

/** A partner whose one endpoint (subscribed to booking.confirmed) always answers 503, and a booking that sends it an event. */
async function failingPartner() {
  const p = await stack.sandboxPartner('Clock Bank');
  const wh = await stack.call('POST', '/webhooks', p.key, { url: down.url, event_types: ['booking.confirmed'] });
  expect(wh.status, JSON.stringify(wh.body)).toBe(201);
  const q = await stack.call('POST', '/quotes', p.key, {
    rate_pack_id: p.pack.id,
    start_date: addDays(localDate(new Date()), 30),
    start_time: null,
    travelers: [{ age: 30 }],
  });
  expect(q.status, JSON.stringify(q.body)).toBe(201);
  const b = await stack.call('POST', '/bookings', p.key, bookingBody(q.body, await signPayment(p.jwk, paidClaims(q.body))));
  expect(b.status, JSON.stringify(b.body)).toBe(201);
  // The first attempt, at once and in real time: it fails.
  let delivery: any;
  for (let i = 0; i < 100 && !(delivery?.attempts >= 1); i++) {
    await sleep(200);
    delivery = (await stack.call('GET', `/webhooks/deliveries?endpoint_id=${wh.body.id}`, p.key)).body.data[0];
  }
  expect(delivery).toMatchObject({ status: 'PENDING', attempts: 1 });
  return { ...p, endpoint: wh.body.id as string, delivery: delivery.id as string };
}

const detail = async (key: string, id: string) => (await stack.call('GET', `/webhooks/deliveries/${id}`, key)).body;

describe('the sandbox clock plays webhook retries and ages failing endpoints', () => {
  it('advancing 6 minutes delivers the retry that was due in 5, at its time; the whole schedule plays out in seconds, then the dead letter', async () => {
    const p = await failingPartner();
    const first = await detail(p.key, p.delivery);
    const t0 = Date.parse(first.attempt_log[0].attempted_at);
    const hitsBefore = down.hits;

    // Nothing happens in real time: the retry waits 5 real minutes.
    await sleep(1_500);
    expect((await detail(p.key, p.delivery)).attempts).toBe(1);

    await advance(p.key, new Date(t0 + 6 * MINUTE));
    const second = await detail(p.key, p.delivery);
    expect(second.attempts).toBe(2);
    expect(down.hits).toBe(hitsBefore + 1);
    // Attempted when the clock reached its due time (the attempt's time is the clock's, not real time).
    expect(Math.abs(Date.parse(second.attempt_log[1].attempted_at) - (t0 + RETRY_WAITS_SECONDS[0]! * 1000))).toBeLessThan(2_000);
    expect(Date.parse(second.next_attempt_at)).toBeGreaterThan(t0 + 6 * MINUTE);

    // Three days: the four other retries, each at its time, and then the dead letter.
    const started = Date.now();
    await advance(p.key, new Date(t0 + 3 * 24 * 60 * MINUTE));
    const realSeconds = (Date.now() - started) / 1000;
    const done = await detail(p.key, p.delivery);
    expect(done).toMatchObject({ status: 'FAILED', attempts: 6, next_attempt_at: null });
    expect(done.dead_lettered_at).not.toBeNull();
    let due = t0;
    for (const [i, wait] of RETRY_WAITS_SECONDS.entries()) {
      due += wait * 1000;
      expect(Math.abs(Date.parse(done.attempt_log[i + 1].attempted_at) - due), `attempt ${i + 2}`).toBeLessThan((i + 2) * 1_000);
    }
    expect(down.hits).toBe(hitsBefore + 5);
    console.log(`clock: 6 attempts over ${((due - t0) / 3_600_000).toFixed(2)} h of clock time played in ${realSeconds.toFixed(1)} s of real time`);
    // In real time the next attempt would have waited 5 minutes: the schedule did not run on its own.
    expect(realSeconds).toBeLessThan(5 * 60);
  });

  it('a failing endpoint is warned after 24 hours of clock time and DISABLED after 5 days, each with its [TEST] e-mail', async () => {
    const p = await failingPartner();
    const team = await stack.call('GET', '/team/members', p.key);
    const admin = team.body.data[0].email as string;
    const mails = async () =>
      ((await stack.admin(['mail:list', '--to', admin])).data as { subject: string; text: string }[]).filter((m) => m.text.includes(p.endpoint));
    const t0 = Date.parse((await detail(p.key, p.delivery)).attempt_log[0].attempted_at);

    await advance(p.key, new Date(t0 + 23 * 60 * MINUTE));
    expect(await mails()).toEqual([]);
    expect((await stack.call('GET', `/webhooks/${p.endpoint}`, p.key)).body.status).toBe('ACTIVE');

    await advance(p.key, new Date(t0 + 25 * 60 * MINUTE));
    expect((await mails()).map((m) => m.subject)).toEqual(['[TEST] Webhook endpoint failing for 24 hours']);

    await advance(p.key, new Date(t0 + 119 * 60 * MINUTE));
    expect((await stack.call('GET', `/webhooks/${p.endpoint}`, p.key)).body.status).toBe('ACTIVE');

    await advance(p.key, new Date(t0 + 121 * 60 * MINUTE));
    const endpoint = (await stack.call('GET', `/webhooks/${p.endpoint}`, p.key)).body;
    expect(endpoint.status).toBe('DISABLED');
    // Disabled at its threshold's instant, on the clock.
    expect(Math.abs(Date.parse(endpoint.updated_at) - (t0 + 120 * 60 * MINUTE))).toBeLessThan(2_000);
    expect((await mails()).map((m) => m.subject)).toEqual([
      '[TEST] Webhook endpoint disabled after 5 days of failures',
      '[TEST] Webhook endpoint failing for 24 hours',
    ]);
  });
});
