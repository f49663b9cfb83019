import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import { bookingBody, paidClaims, signPayment } from './booking-helpers';
import { BOOT_HOOK_MS, OwnStack } from './own-stack';

/**
 * Recover while the storm is on (issue 41, 1), in a stack of its own whose retries wait their real times
 * (WEBHOOK_WAIT_SCALE=1: 5 minutes after a first failure) and whose index reads lag 750 ms, as the shared
 * stack's do: a retry within these tests' 20 s came from the recover, and nothing else.
 */
let stack: OwnStack;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  stack = await OwnStack.start('recover', { WEBHOOK_WAIT_SCALE: '1', LOCAL_GSI_LAG_MS: '750' });
}, BOOT_HOOK_MS);

afterAll(async () => {
  for (const close of closers) await close();
  await stack?.stop();
}, 30_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async <T>(fn: () => T, ok: (v: T) => boolean, ms: number): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (ok(v) || Date.now() > end) return v;
    await sleep(100);
  }
};

interface Hit {
  event: string;
  attempt: number;
  status: number;
}

/**
 * A receiver that answers 500 until it is fixed (200 from then on). While `holding`, a request is kept
 * unanswered (its attempt in flight) until `release()` answers it 500, as a receiver still broken would.
 */
async function receiver() {
  const hits: Hit[] = [];
  const held: { res: ServerResponse; hit: Hit }[] = [];
  const state = { fixed: false, holding: false };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const hit = { event: String(req.headers['x-service-event-id']), attempt: Number(req.headers['x-service-delivery-attempt']), status: 0 };
      hits.push(hit);
      if (state.holding && !state.fixed) return void held.push({ res, hit });
      hit.status = state.fixed ? 200 : 500;
      res.writeHead(hit.status).end(state.fixed ? 'ok' : 'down');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}/hooks`,
    state,
    hits,
    held,
    /** Answers every held request 500: their attempts fail now. */
    release() {
      for (const { res, hit } of held.splice(0)) {
        hit.status = 500;
        res.writeHead(500).end('down');
      }
    },
    /** The 200 answers each event got, in the order of `events`. */
    receipts: (events: string[]) => events.map((e) => hits.filter((h) => h.event === e && h.status === 200).length),
    /** Every request each event got. */
    requests: (events: string[]) => events.map((e) => hits.filter((h) => h.event === e).length),
  };
}

/** A sandbox partner with one endpoint (booking.confirmed) at `url`. */
async function partner(url: string) {
  const p = await stack.sandboxPartner('Recover Bank');
  const wh = await stack.call('POST', '/webhooks', p.key, { url, event_types: ['booking.confirmed'] });
  expect(wh.status, JSON.stringify(wh.body)).toBe(201);
  return { ...p, endpoint: wh.body.id as string };
}

async function book(p: Awaited<ReturnType<typeof partner>>, day: number) {
  const q = await stack.call('POST', '/quotes', p.key, {
    rate_pack_id: p.pack.id,
    start_date: addDays(localDate(new Date()), 30 + day),
    start_time: null,
    travelers: [{ age: 30 }],
  });
  expect(q.status, JSON.stringify(q.body)).toBe(201);
  const b = await stack.call('POST', '/bookings', p.key, bookingBody(q.body, await signPayment(p.jwk, paidClaims(q.body))));
  expect(b.status, JSON.stringify(b.body)).toBe(201);
}

/** Three recovers at once, each with its own Idempotency-Key, `since` before the bookings. */
async function threeRecovers(p: { key: string; endpoint: string }, since: string) {
  const answers = await Promise.all([0, 1, 2].map(() => stack.call('POST', `/webhooks/${p.endpoint}/recover`, p.key, { since })));
  expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
  return answers.map((a) => a.body as { resent: number; brought_forward: number });
}

const firstAttempts = (hits: Hit[]) => [...new Set(hits.filter((h) => h.attempt === 1).map((h) => h.event))];

describe('recover during a storm: every delivery not yet DELIVERED gets its next attempt at once, once', () => {
  it('the issue: four bookings to an endpoint answering 500, the receiver fixed, three parallel recovers: receipts 1, 1, 1, 1 within 20 s', async () => {
    const r = await receiver();
    const p = await partner(r.url);
    const since = new Date(Date.now() - 1000).toISOString();
    for (let i = 0; i < 4; i++) await book(p, i);
    // Each first attempt reaches the receiver (and fails).
    const events = await until(
      () => firstAttempts(r.hits),
      (e) => e.length === 4 && r.hits.every((h) => h.status === 500),
      30_000,
    );
    expect(events).toHaveLength(4);
    r.state.fixed = true;
    const answers = await threeRecovers(p, since);
    const receipts = await until(
      () => r.receipts(events),
      (x) => x.every((n) => n >= 1),
      20_000,
    );
    console.log(`recover race: receipts ${receipts.join(', ')}; brought_forward ${answers.map((a) => a.brought_forward).join(' + ')}`);
    expect(receipts).toEqual([1, 1, 1, 1]);
    // Once each across the three calls: counted once, and no event attempted a third time.
    expect(answers.reduce((n, a) => n + a.brought_forward + a.resent, 0)).toBe(4);
    await sleep(3_000);
    expect(r.requests(events)).toEqual([2, 2, 2, 2]);
  });

  it('an attempt in flight when the recovers run is attempted again as soon as it fails, not after its 5-minute wait; once', async () => {
    const r = await receiver();
    const p = await partner(r.url);
    const since = new Date(Date.now() - 1000).toISOString();
    r.state.holding = true;
    await book(p, 0);
    await book(p, 1);
    await until(
      () => r.held.length,
      (n) => n === 2,
      30_000,
    );
    const events = firstAttempts(r.hits);
    r.state.fixed = true;
    const answers = await threeRecovers(p, since);
    expect(answers.reduce((n, a) => n + a.brought_forward, 0)).toBe(2);
    // The attempts in flight fail only now, after the recovers answered.
    r.release();
    const receipts = await until(
      () => r.receipts(events),
      (x) => x.every((n) => n >= 1),
      20_000,
    );
    console.log(`recover with attempts in flight: receipts ${receipts.join(', ')}`);
    expect(receipts).toEqual([1, 1]);
    await sleep(3_000);
    expect(r.requests(events)).toEqual([2, 2]);
  });

  it('one recover right after a first attempt failed (the index does not show that failure yet) attempts it again at once', async () => {
    const r = await receiver();
    const p = await partner(r.url);
    const since = new Date(Date.now() - 1000).toISOString();
    await book(p, 0);
    const [event] = await until(
      () => r.hits.filter((h) => h.status === 500).map((h) => h.event),
      (e) => e.length === 1,
      30_000,
    );
    r.state.fixed = true;
    const answer = await stack.call('POST', `/webhooks/${p.endpoint}/recover`, p.key, { since });
    expect(answer.status).toBe(202);
    const receipts = await until(
      () => r.receipts([event!]),
      (x) => x[0]! >= 1,
      20_000,
    );
    console.log(`one recover right after a failed first attempt: receipts ${receipts.join(', ')}`);
    expect(receipts).toEqual([1]);
    expect(answer.body.brought_forward).toBe(1);
  });
});
