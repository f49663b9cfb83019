import { randomUUID } from 'node:crypto';
import type { JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import type { RequestLogEntry } from '../../shared/request-logs/entry';
import { ROUTE_LIST } from '../../shared/routes';
import { nextPeriod, periodOf } from '../../shared/settlements/period';
import { bookingBody, packs, paidClaims, quoteFor, sandboxPaymentKey, signPayment } from './booking-helpers';
import { consoleAdmin, sessionHeaders } from './console-session';
import { type ApiResponse, admin, api, newPartner, signatureHeaders, write } from './helpers';

/**
 * What a partner may send, at the edges: text that would forge a row or a
 * line of a document, dates out of any sane range, a payment time from
 * another era, repeated event types, and the settlement run helper's period.
 */
const today = localDate(new Date());
const horizon = addDays(today, 365);
const travel = addDays(today, 25);

let K: string;
let jwk: JWK;
let pack: { id: string; start_time: string | null; slug: string };
beforeAll(async () => {
  const p = await newPartner();
  K = p.test_key;
  jwk = await sandboxPaymentKey(p.partner_id);
  pack = (await packs(K)).FLEXIBLE;
});

/** A 400 in the error shape whose details name `field` first. */
function refused(r: { status: number; body: any; text: string }, field: string, code = 'validation.field.invalid') {
  expect(r.status, r.text).toBe(400);
  expect(r.body.code).toBe(code);
  expect(r.body.details.errors[0].field).toBe(field);
  expect(r.body.message).toContain(field);
  expect(r.body.request_id).toBeTruthy();
}

async function book(overrides: Record<string, unknown> = {}, claims: Record<string, unknown> = {}) {
  const quote = await quoteFor(K, pack, travel);
  return write('POST', '/bookings', K, bookingBody(quote, await signPayment(jwk, { ...paidClaims(quote), ...claims }), overrides));
}

describe('text that reaches a document', () => {
  it('refuses a partner_reference with a line break, as each forged reference of issue 22, and the control characters of names', async () => {
    for (const forged of ['x\n=1+1', "\n-2+3+cmd|' /C calc'!A0", 'x\r@SUM(1+1)', 'tab\there', 'del\u007f', 'c1\u0085next']) {
      const r = await book({ partner_reference: forged });
      refused(r, 'partner_reference');
      expect(r.body.message).toMatch(/line breaks/);
    }
    const quote = await quoteFor(K, pack, travel);
    const confirmation = await signPayment(jwk, paidClaims(quote));
    refused(
      await write('POST', '/bookings', K, bookingBody(quote, confirmation, { travelers: [{ first_name: 'A\nB', last_name: 'C' }] })),
      'travelers.0.first_name',
    );
    const contact = { first_name: 'Amina', last_name: 'El\r\nIdrissi', email: 'amina@example.com', phone: '+212 600 000 000' };
    refused(await write('POST', '/bookings', K, bookingBody(quote, confirmation, { contact })), 'contact.last_name');
    // Bidirectional controls (U+202E shows a reference reversed to a reviewer) are refused in every such text.
    for (const spoof of ['BANK-\u202e1234', '\u2066REF\u2069', 'A\u200fB']) {
      const r = await book({ partner_reference: spoof });
      refused(r, 'partner_reference');
      expect(r.body.message).toMatch(/bidirectional/);
    }
    refused(
      await write('POST', '/bookings', K, bookingBody(quote, confirmation, { travelers: [{ first_name: '\u202eanimA', last_name: 'C' }] })),
      'travelers.0.first_name',
    );
    // The same booking with plain text goes through.
    expect((await write('POST', '/bookings', K, bookingBody(quote, confirmation))).status).toBe(201);
  });

  it('refuses control characters in the other texts a partner stores: cancel reason, webhook description, transfer reference, review title', async () => {
    const b = await book();
    expect(b.status, b.text).toBe(201);
    refused(await write('POST', `/bookings/${b.body.booking_number}/cancel`, K, { reason: 'changed\nplans' }), 'reason');
    refused(await write('POST', '/webhooks', K, { url: 'https://example.com/h', event_types: ['booking.confirmed'], description: 'a\u0000b' }), 'description');
    refused(await write('POST', `/test-helpers/settlements/${randomUUID()}/pay`, K, { transfer_reference: 'VIR\r1' }), 'transfer_reference');
    const review = {
      booking_number: b.body.booking_number,
      reviewable_type: 'EXPERIENCE',
      rating: 5,
      title: 'Great\nday',
      comment: 'A fine day out in the medina.',
    };
    refused(await write('POST', '/reviews', K, review), 'title');
  });
});

describe('dates in a sane range', () => {
  it('answers 400, not 500, for availability far ahead, and bounds every date parameter of every route', async () => {
    const slug = pack.slug;
    const cases: [string, string, string, unknown?][] = [
      ['GET', `/adventures/${slug}/availability?from=9999-12-31&to=9999-12-31`, 'from'],
      ['GET', `/adventures/${slug}/availability?to=${addDays(horizon, 1)}&from=${addDays(horizon, -5)}`, 'to'],
      ['GET', `/adventures/${slug}/availability?from=0001-01-01&to=${today}`, 'from'],
      ['GET', '/adventures?date=9999-12-31', 'date'],
      ['GET', '/adventures?date=1000-01-01', 'date'],
      ['POST', '/quotes', 'start_date', { rate_pack_id: pack.id, start_date: '9999-12-31', travelers: [{ age: 30 }] }],
      ['POST', '/quotes', 'start_date', { rate_pack_id: pack.id, start_date: addDays(horizon, 1), travelers: [{ age: 30 }] }],
      ['GET', '/bookings?created_to=9999-12-31T00:00:00Z', 'created_to'],
      ['GET', '/bookings?created_from=0001-01-01T00:00:00Z', 'created_from'],
      ['GET', '/settlements?period_to=9999-12', 'period_to'],
      ['GET', '/settlements?period_from=0001-01', 'period_from'],
    ];
    for (const [method, path, field, body] of cases) {
      const r = method === 'GET' ? await api(method, path, { key: K }) : await write(method, path, K, body);
      refused(r, field);
      expect(r.body.message, path).toMatch(/\d{4}-\d{2}/);
    }
    // Any well-formed month may be asked of the settlement run: a far one is the domain's 422, as the guide says.
    const far = await write('POST', '/test-helpers/settlements/run', K, { period: '9999-12' });
    expect(`${far.status} ${far.body.code}`, far.text).toBe('422 settlement.period.not_closable');
    // Birth dates go back further, but not before 1900 nor after today.
    for (const birth_date of ['1800-01-01', addDays(today, 1)]) {
      const r = await write('POST', '/quotes', K, { rate_pack_id: pack.id, start_date: travel, travelers: [{ birth_date }] });
      expect(r.status, r.text).toBe(400);
    }
    // The horizon itself is accepted.
    expect((await api('GET', `/adventures/${slug}/availability?from=${addDays(horizon, -3)}&to=${horizon}`, { key: K })).status).toBe(200);
    expect((await api('GET', `/adventures?date=${horizon}`, { key: K })).status).toBe(200);
  });
});

describe('a payment confirmation', () => {
  it('refuses a paid_at in the future beyond the clock skew, or older than a day, naming the field', async () => {
    for (const paid_at of [
      '2099-01-01T00:00:00Z',
      new Date(Date.now() + 10 * 60_000).toISOString(),
      '2000-01-01T00:00:00Z',
      new Date(Date.now() - 25 * 3_600_000).toISOString(),
    ]) {
      const r = await book({}, { paid_at });
      refused(r, 'paid_at', 'payment.confirmation.malformed');
    }
    // Within the skew (a bank clock a minute ahead) and a payment taken an hour ago are fine.
    expect((await book({}, { paid_at: new Date(Date.now() + 60_000).toISOString() })).status).toBe(201);
    expect((await book({}, { paid_at: new Date(Date.now() - 3_600_000).toISOString() })).status).toBe(201);
  });
});

describe('webhook event types', () => {
  it('refuses a list that names a type twice, on create and update', async () => {
    const twice = ['booking.confirmed', 'booking.cancelled', 'booking.confirmed'];
    refused(await write('POST', '/webhooks', K, { url: 'https://example.com/h', event_types: twice }), 'event_types');
    refused(await write('PATCH', `/webhooks/${randomUUID()}`, K, { event_types: twice }), 'event_types');
    const many = Array.from({ length: 100 }, () => 'booking.confirmed');
    refused(await write('POST', '/webhooks', K, { url: 'https://example.com/h', event_types: many }), 'event_types');
  });
});

describe('the settlement run helper', () => {
  it('closes by name the same periods it closes by default: a month that bookings reached after an early close', async () => {
    const p = await newPartner();
    const key = p.test_key;
    const pj = await sandboxPaymentKey(p.partner_id);
    const bookOne = async () => {
      const quote = await quoteFor(key, pack, travel);
      const r = await write('POST', '/bookings', key, bookingBody(quote, await signPayment(pj, paidClaims(quote))));
      expect(r.status, r.text).toBe(201);
    };
    const running = periodOf(new Date());
    await bookOne();
    const first = await write('POST', '/test-helpers/settlements/run', key);
    expect(first.body.data.map((s: { period_start: string }) => s.period_start.slice(0, 7))).toEqual([running]);
    // The running month is closed: the next booking goes to next month's DRAFT, which can be closed by name.
    await bookOne();
    const named = await write('POST', '/test-helpers/settlements/run', key, { period: nextPeriod(running) });
    expect(named.status, named.text).toBe(200);
    expect(named.body.data.map((s: { period_start: string; status: string }) => [s.period_start.slice(0, 7), s.status])).toEqual([
      [nextPeriod(running), 'ISSUED'],
    ]);
    // Beyond the latest DRAFT and the running month: 422, naming the latest closable period.
    await bookOne();
    const beyond = await write('POST', '/test-helpers/settlements/run', key, { period: nextPeriod(nextPeriod(nextPeriod(running))) });
    expect(beyond.status, beyond.text).toBe(422);
    expect(beyond.body).toMatchObject({ code: 'settlement.period.not_closable', details: { latest_closable_period: nextPeriod(nextPeriod(running)) } });
    // The default closes exactly that one.
    const byDefault = await write('POST', '/test-helpers/settlements/run', key);
    expect(byDefault.body.data.map((s: { period_start: string }) => s.period_start.slice(0, 7))).toEqual([nextPeriod(nextPeriod(running))]);
  });
});

describe('bodies nested 10 000 levels deep (issue 40)', () => {
  type Entry = RequestLogEntry & { request_body: { content: string | null; omitted?: string } | null };

  /** The partner's request log entries with `code` in one environment, every page, once `count` are there (the log lags its requests). */
  async function loggedWithCode(key: string, code: string, count: number): Promise<Map<string, Entry>> {
    const end = Date.now() + 30_000;
    for (;;) {
      const found = new Map<string, Entry>();
      let cursor: string | null = null;
      do {
        const r: ApiResponse<{ data: Entry[]; meta: { next_cursor: string | null } }> = await api(
          'GET',
          `/request-logs?limit=100&code=${code}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { key },
        );
        expect(r.status, r.text).toBe(200);
        for (const e of r.body.data) found.set(e.request_id, e);
        cursor = r.body.meta.next_cursor;
      } while (cursor);
      if (found.size >= count || Date.now() > end) return found;
      await new Promise((done) => setTimeout(done, 500));
    }
  }

  it('answer 400 request.body.too_deep on every write route that takes JSON (sandbox key, signed live key, console session), each in the request log', async () => {
    const p = await newPartner();
    await admin(['partner:set-rate-limit', '--partner', p.partner_id, '--per-minute', '100000', '--json']);
    const { session } = await consoleAdmin(p);
    const routes = ROUTE_LIST.filter((r) => r.write && r.request?.body);
    expect(routes.length).toBe(26);
    const bodies = { arrays: `${'['.repeat(10_000)}${']'.repeat(10_000)}`, objects: `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}` };
    const sent: { env: 'test' | 'live'; id: string; label: string }[] = [];
    for (const r of routes) {
      const path = r.path.replace(/^\/v1/, '').replace(/\{[^}]+\}/g, 'x1');
      // Test helpers answer sandbox keys only, team roles (and the sign-out) live ones: each route with every
      // credential that reaches it.
      const callers = [
        ...(r.liveOnly || r.liveKeysOnly ? [] : [{ who: 'sandbox key', env: 'test' as const, headers: { authorization: `Bearer ${p.test_key}` } }]),
        ...(r.sandboxOnly ? [] : [{ who: 'signed live key', env: 'live' as const, headers: { authorization: `Bearer ${p.live_key}` } }]),
        { who: 'console session', env: r.liveOnly ? ('live' as const) : ('test' as const), headers: sessionHeaders(session, r.liveOnly ? 'live' : 'sandbox') },
      ];
      for (const [shape, body] of Object.entries(bodies)) {
        for (const c of callers) {
          const signature = c.who === 'signed live key' ? signatureHeaders(p.live_key, r.method, path, body) : {};
          const headers = { ...c.headers, ...signature, 'content-type': 'application/json', 'idempotency-key': randomUUID() };
          const res = await api(r.method, path, { rawBody: body, headers });
          const label = `${r.method} ${path}, ${shape}, ${c.who}`;
          expect(res.status, `${label}: ${res.text.slice(0, 300)}`).toBe(400);
          expect(res.body, label).toMatchObject({ code: 'request.body.too_deep', details: { max_depth: 64 } });
          sent.push({ env: c.env, id: res.headers.get('x-request-id')!, label });
        }
      }
    }
    // Each refusal is in the environment's request log, like any 400: its body's size kept, nothing else of it.
    for (const [env, key] of [
      ['test', p.test_key],
      ['live', p.live_key],
    ] as const) {
      const want = sent.filter((s) => s.env === env);
      const logged = await loggedWithCode(key, 'request.body.too_deep', want.length);
      for (const s of want) {
        expect(logged.get(s.id), s.label).toMatchObject({ status: 400, error_code: 'request.body.too_deep', request_body: { content: null } });
        expect(logged.get(s.id)!.request_body!.omitted, s.label).toContain('64 levels');
      }
    }
    console.log(`nesting: ${sent.length} requests over ${routes.length} write routes, each 400 request.body.too_deep and in the request log`);
  }, 300_000);
});
