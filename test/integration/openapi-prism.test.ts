import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/services';
import { bookingBody, packs, paidClaims, sandboxPaymentKey, signPayment } from './booking-helpers';
import { api, baseUrl, newPartner, startEventReceiver } from './helpers';

const ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * Prism (@stoplight/prism-cli) as a proxy in front of the local stack, with
 * --errors: it checks every request and response against the OpenAPI document
 * the stack serves, answers a request that the document refuses itself (422,
 * application/problem+json) instead of forwarding it, and a response that
 * breaks the document as an error. The journey is the integration suite's,
 * once: what passes here is what a generated client may send and receive.
 */
let prism: ChildProcess | undefined;
let prismUrl = '';
let prismLog = '';

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oas-prism-'));
  const file = join(dir, 'openapi.json');
  writeFileSync(file, (await api('GET', '/openapi.json')).text);
  const port = await freePort();
  prism = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js'),
      'proxy',
      file,
      baseUrl(),
      '--errors',
      '--port',
      String(port),
      '-h',
      '127.0.0.1',
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`Prism did not start in 60 s:\n${prismLog}`)), 60_000);
    const onData = (d: Buffer) => {
      prismLog += d.toString();
      if (prismLog.includes('Prism is listening')) {
        clearTimeout(timer);
        ready();
      }
    };
    prism!.stdout!.on('data', onData);
    prism!.stderr!.on('data', onData);
    prism!.once('exit', (code) => fail(new Error(`Prism exited with ${code}:\n${prismLog}`)));
  });
  prismUrl = `http://127.0.0.1:${port}`;
}, 90_000);

afterAll(() => {
  prism?.kill();
});

interface Sent {
  what: string;
  expected: number;
  status: number;
  violations: string | null;
  body: any;
}
const sent: Sent[] = [];

/** One request through Prism; the journey checks every answer at the end, and each step reads what it needs. */
async function call(what: string, expected: number, method: string, path: string, opts: { key?: string; body?: unknown; idempotencyKey?: string } = {}) {
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (method !== 'GET') headers['idempotency-key'] = opts.idempotencyKey ?? randomUUID();
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${prismUrl}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  const r = { what: `${what}: ${method} ${path}`, expected, status: res.status, violations: res.headers.get('sl-violations'), body };
  sent.push(r);
  return r;
}

describe('the integration journey through prism proxy --errors', () => {
  it('passes with no request or response violation', async () => {
    const p = await newPartner();
    const key = p.test_key;
    const pack = (await packs(key)).SCHEDULED;
    const date = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    const receiver = await startEventReceiver('/hooks');
    try {
      await call('health', 200, 'GET', '/health');
      await call('me', 200, 'GET', '/me', { key });
      await call('adventures', 200, 'GET', '/adventures?limit=2&sort=price', { key });
      await call('adventure', 200, 'GET', `/adventures/${pack.slug}`, { key });
      await call('availability', 200, 'GET', `/adventures/${pack.slug}/availability?from=${date}&to=${date}&rate_pack_id=${pack.id}`, { key });

      // Quote, book, preview and cancel, with no body where none is needed.
      const quoteBody = { rate_pack_id: pack.id, start_date: date, start_time: pack.start_time, travelers: [{ age: 30 }] };
      const quoteKey = randomUUID();
      const quote = (await call('quote', 201, 'POST', '/quotes', { key, body: quoteBody, idempotencyKey: quoteKey })).body;
      await call('quotes', 200, 'GET', '/quotes?limit=2', { key });
      // Above 100: the service clamps it (the spec), so the document must not refuse it.
      const clamped = (await call('quotes with limit=500', 200, 'GET', '/quotes?limit=500', { key })).body;
      expect(clamped.meta?.page_size).toBe(100);
      const jwk = await sandboxPaymentKey(p.partner_id);
      const booking = (await call('booking', 201, 'POST', '/bookings', { key, body: bookingBody(quote, await signPayment(jwk, paidClaims(quote))) })).body;
      await call('bookings', 200, 'GET', '/bookings?limit=2&status=CONFIRMED', { key });
      await call('cancellation quote', 200, 'GET', `/bookings/${booking.booking_number}/cancellation-quote`, { key });
      await call('cancel without a body', 200, 'POST', `/bookings/${booking.booking_number}/cancel`, { key });

      // A second booking, completed with {}; a third cancelled by the service without a body.
      const bookOne = async () => {
        const q = (await call('quote', 201, 'POST', '/quotes', { key, body: quoteBody })).body;
        return (await call('booking', 201, 'POST', '/bookings', { key, body: bookingBody(q, await signPayment(jwk, paidClaims(q))) })).body;
      };
      const second = await bookOne();
      await call('complete with {}', 200, 'POST', `/test-helpers/bookings/${second.booking_number}/complete`, { key, body: {} });
      const third = await bookOne();
      await call('service-cancel without a body', 200, 'POST', `/test-helpers/bookings/${third.booking_number}/service-cancel`, { key });

      // Settlements: the run and the payment, without a body.
      const issued = (await call('settlement run without a body', 200, 'POST', '/test-helpers/settlements/run', { key })).body;
      await call('settlements', 200, 'GET', '/settlements?limit=5', { key });
      if (issued.data?.[0]) await call('pay without a body', 200, 'POST', `/test-helpers/settlements/${issued.data[0].id}/pay`, { key });

      // Webhooks: create, list, the test send without a body, the delivery log, a replay with {}.
      const hook = (
        await call('webhook', 201, 'POST', '/webhooks', { key, body: { url: receiver.url, event_types: ['booking.confirmed', 'booking.cancelled'] } })
      ).body;
      await call('webhooks', 200, 'GET', '/webhooks', { key });
      const test = (await call('test send without a body', 200, 'POST', `/webhooks/${hook.id}/test`, { key })).body;
      await call('deliveries', 200, 'GET', `/webhooks/deliveries?limit=5&endpoint_id=${hook.id}`, { key });
      await call('delivery', 200, 'GET', `/webhooks/deliveries/${test.delivery_id}`, { key });
      await call('replay with {}', 202, 'POST', `/webhooks/deliveries/${test.delivery_id}/replay`, { key, body: {} });

      // Errors the service answers, as documented: 400, 404, 409, 422.
      await call('400 sort=distance without lat and lng', 400, 'GET', '/adventures?sort=distance', { key });
      await call('400 a cursor of nothing', 400, 'GET', '/quotes?cursor=not-a-cursor', { key });
      await call('404 no such booking', 404, 'GET', '/bookings/PTB-0000-0000', { key });
      await call('422 a period the run cannot close', 422, 'POST', '/test-helpers/settlements/run', { key, body: { period: '2099-01' } });
      await call('409 cancelled twice', 409, 'POST', `/bookings/${booking.booking_number}/cancel`, { key, body: { reason: 'twice' } });
      await call('409 an Idempotency-Key reused with another body', 409, 'POST', '/quotes', {
        key,
        body: { ...quoteBody, travelers: [{ age: 31 }] },
        idempotencyKey: quoteKey,
      });

      // The sandbox clock, last: moving it moves the partner's sandbox.
      const clock = (await call('clock', 200, 'GET', '/test-helpers/clock', { key })).body;
      await call('422 a clock moved back', 422, 'POST', '/test-helpers/clock/advance', { key, body: { to: '2020-01-01T00:00:00Z' } });
      await call('422 a clock moved too far', 422, 'POST', '/test-helpers/clock/advance', { key, body: { to: '2099-01-01T00:00:00+01:00' } });
      await call('advance the clock a minute', 200, 'POST', '/test-helpers/clock/advance', {
        key,
        body: { to: new Date(Date.parse(clock.now) + 60_000).toISOString() },
      });
    } finally {
      await receiver.close();
    }

    const broken = sent.filter((r) => r.violations || r.status !== r.expected);
    expect(
      broken.map(
        (r) => `${r.what}: ${r.status} (expected ${r.expected})${r.violations ? ` sl-violations ${r.violations}` : ''} ${JSON.stringify(r.body).slice(0, 400)}`,
      ),
    ).toEqual([]);
    expect(sent.length).toBeGreaterThanOrEqual(30);
  }, 120_000);
});
