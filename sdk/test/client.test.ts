import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createClient,
  PartnerApiError,
  PartnerNetworkError,
  SandboxClockTimeoutError,
  type SignatureVersion,
  signatureDiagnostics,
  signatureMismatch,
  signRequest,
  signRequestVersion,
} from '../src/index';

/** The README's worked example of a live signature (Signing live writes). */
const README = {
  secret: 'S3cr3tS3cr3tS3cr3tS3cr3tS3cr3tAB',
  ts: '1795251000',
  path: '/v1/team/members/7c0e9c1e-2f57-4d0b-9a43-1f5b8f1f6a11/role',
  body: '{"role":"FINANCE"}',
  signature: '37f4004be0b5ed6b3bbc5a8dc8a3ef35fefff91d558fb6fbc896bdd450aa088b',
};

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function fakeFetch(answers: (Response | Error)[]) {
  const calls: Call[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({
      url: String(url),
      method: init?.method ?? 'GET',
      headers: { ...(init?.headers as Record<string, string>) },
      body: init?.body as string | undefined,
    });
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    if (next instanceof Error) throw next;
    return next;
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const err = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { code, message: `m ${code}`, request_id: `req-${status}` }, headers);

function client(answers: (Response | Error)[], opts: { apiKey?: string; now?: number; signatureVersion?: SignatureVersion } = {}) {
  const f = fakeFetch(answers);
  const sleeps: number[] = [];
  const c = createClient({
    apiKey: opts.apiKey ?? 'sk_test_abcdefabcdef_0123456789abcdef0123456789abcdef',
    baseUrl: 'http://api.test/v1',
    fetch: f.fetch,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    now: () => opts.now ?? 1_795_251_000_000,
    ...(opts.signatureVersion ? { signatureVersion: opts.signatureVersion } : {}),
  });
  return { c, calls: f.calls, sleeps };
}

describe('signing', () => {
  it("matches the README's worked example", () => {
    expect(signRequest(README.secret, README.ts, 'PATCH', README.path, README.body)).toBe(README.signature);
    expect(signRequest(README.secret, README.ts, 'PATCH', README.path, new TextEncoder().encode(README.body))).toBe(README.signature);
  });

  it('signs live writes as version 2 by default, over the exact bytes sent, the path and query and the Idempotency-Key, and not sandbox ones', async () => {
    const live = client([json(200, { id: 'm' })], { apiKey: `sk_live_abcdefabcdef_${README.secret}` });
    await live.c.team.updateMemberRole({ path: { user_id: '7c0e9c1e-2f57-4d0b-9a43-1f5b8f1f6a11' }, body: { role: 'FINANCE' }, idempotencyKey: 'k-1' });
    const sent = live.calls[0]!;
    expect(sent.url).toBe(`http://api.test${README.path}`);
    expect(sent.body).toBe(README.body);
    expect(sent.headers['x-timestamp']).toBe(README.ts);
    expect(sent.headers['x-signature-version']).toBe('2');
    expect(sent.headers['x-signature']).toBe(
      createHmac('sha256', README.secret).update(`v2\n${README.ts}\nPATCH\n${README.path}\nk-1\n${README.body}`).digest('hex'),
    );
    expect(sent.headers.authorization).toBe(`Bearer sk_live_abcdefabcdef_${README.secret}`);

    const test = client([json(200, { id: 'm' })]);
    await test.c.team.updateMemberRole({ path: { user_id: 'u' }, body: { role: 'FINANCE' } });
    expect(test.calls[0]!.headers['x-signature']).toBeUndefined();
    expect(test.calls[0]!.headers['x-signature-version']).toBeUndefined();
    expect(test.calls[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('signs as the spec does with signatureVersion 1: no version header, the worked example', async () => {
    const live = client([json(200, { id: 'm' })], { apiKey: `sk_live_abcdefabcdef_${README.secret}`, signatureVersion: 1 });
    await live.c.team.updateMemberRole({ path: { user_id: '7c0e9c1e-2f57-4d0b-9a43-1f5b8f1f6a11' }, body: { role: 'FINANCE' } });
    expect(live.calls[0]!.headers['x-signature-version']).toBeUndefined();
    expect(live.calls[0]!.headers['x-signature']).toBe(README.signature);
  });

  it('version 2: two identical live writes of one second keep the second and differ by their Idempotency-Key', async () => {
    const live = client([json(201, { id: 'q1' }), json(201, { id: 'q2' })], { apiKey: `sk_live_abcdefabcdef_${README.secret}` });
    const body = { rate_pack_id: 'r', start_date: '2026-12-01', start_time: null, travelers: [{ age: 30 }] };
    await live.c.quotes.create({ body });
    await live.c.quotes.create({ body });
    const [a, b] = live.calls;
    expect([a!.headers['x-timestamp'], b!.headers['x-timestamp']]).toEqual([README.ts, README.ts]);
    expect(a!.headers['x-signature']).not.toBe(b!.headers['x-signature']);
  });

  it('version 1: two identical live writes within one second get distinct timestamps, since the service accepts such a signature once', async () => {
    const live = client([json(201, { id: 'q1' }), json(201, { id: 'q2' })], { apiKey: `sk_live_abcdefabcdef_${README.secret}`, signatureVersion: 1 });
    const body = { rate_pack_id: 'r', start_date: '2026-12-01', start_time: null, travelers: [{ age: 30 }] };
    await live.c.quotes.create({ body });
    await live.c.quotes.create({ body });
    const [a, b] = live.calls;
    expect(a!.body).toBe(b!.body);
    expect([a!.headers['x-timestamp'], b!.headers['x-timestamp']]).toEqual([README.ts, String(Number(README.ts) + 1)]);
    expect(a!.headers['x-signature']).not.toBe(b!.headers['x-signature']);
    expect(b!.headers['x-signature']).toBe(signRequest(README.secret, b!.headers['x-timestamp']!, 'POST', '/v1/quotes', b!.body!));
  });

  it("exposes auth.signature.invalid's diagnostics, which signatureMismatch compares with what was signed", async () => {
    const signed = { timestamp: README.ts, method: 'PATCH', pathWithQuery: README.path, idempotencyKey: 'k-1' };
    // What a proxy that re-serialized the body made the service sign.
    const received = signatureDiagnostics(2, signed, '{"role": "FINANCE"}');
    const { c } = client([json(401, { code: 'auth.signature.invalid', message: 'm', request_id: 'r', details: received })], {
      apiKey: `sk_live_abcdefabcdef_${README.secret}`,
    });
    const e = await c.team.updateMemberRole({ path: { user_id: 'u' }, body: { role: 'FINANCE' } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PartnerApiError);
    const diagnostics = (e as PartnerApiError).signatureDiagnostics!;
    expect(diagnostics).toEqual(received);
    expect(signatureMismatch(diagnostics, signatureDiagnostics(2, signed, README.body)).map((m) => m.part)).toEqual(['body_length', 'body_sha256']);
    expect(signatureMismatch(diagnostics, received)).toEqual([]);
    expect(
      new PartnerApiError({ status: 401, code: 'auth.api_key.invalid', message: 'm', request_id: 'r', operation: 'x', headers: new Headers() })
        .signatureDiagnostics,
    ).toBeUndefined();
  });

  it('signs nothing on reads, and sends lists comma-separated in the query', async () => {
    const live = client([json(200, { data: [], meta: { count: 0, next_cursor: null } })], { apiKey: `sk_live_abcdefabcdef_${README.secret}` });
    await live.c.bookings.list({ status: ['CONFIRMED', 'CANCELLED'], limit: 5 }).toArray();
    expect(live.calls[0]!.url).toBe('http://api.test/v1/bookings?status=CONFIRMED%2CCANCELLED&limit=5');
    expect(live.calls[0]!.headers['x-signature']).toBeUndefined();
    expect(live.calls[0]!.headers['idempotency-key']).toBeUndefined();
  });
});

describe('retries', () => {
  it('honours Retry-After on 429, keeps the Idempotency-Key and the bytes, and signs each attempt anew', async () => {
    const { c, calls, sleeps } = client([err(429, 'rate_limit.exceeded', { 'retry-after': '7' }), err(503, 'internal.error'), json(201, { id: 'q' })], {
      apiKey: `sk_live_abcdefabcdef_${README.secret}`,
    });
    const q = await c.quotes.create({ body: { rate_pack_id: 'r', start_date: '2026-12-01', start_time: null, travelers: [{ age: 30 }] } });
    expect(q).toEqual({ id: 'q' });
    expect(calls).toHaveLength(3);
    expect(sleeps).toEqual([7000, 500]); // Retry-After, then full jitter: 0.5 * min(8000, 500 * 2^1)
    const keys = new Set(calls.map((x) => x.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect(new Set(calls.map((x) => x.body)).size).toBe(1);
    for (const x of calls)
      expect(x.headers['x-signature']).toBe(
        signRequestVersion(
          2,
          README.secret,
          { timestamp: x.headers['x-timestamp']!, method: 'POST', pathWithQuery: '/v1/quotes', idempotencyKey: x.headers['idempotency-key'] },
          x.body!,
        ),
      );
  });

  it('uses the Idempotency-Key given, on every attempt', async () => {
    const { c, calls } = client([new TypeError('fetch failed'), json(201, { id: 'q' })]);
    await c.quotes.create({ body: { rate_pack_id: 'r', start_date: '2026-12-01', start_time: null, travelers: [{ age: 30 }] }, idempotencyKey: 'my-key-1' });
    expect(calls.map((x) => x.headers['idempotency-key'])).toEqual(['my-key-1', 'my-key-1']);
  });

  it('retries network errors and 5xx with capped, jittered backoff, then gives up', async () => {
    const { c, calls, sleeps } = client([new TypeError('fetch failed'), err(500, 'internal.error'), err(502, 'internal.error'), err(500, 'internal.error')]);
    const e = await c.meta.getMe().catch((x) => x);
    expect(e).toBeInstanceOf(PartnerApiError);
    expect(e.status).toBe(500);
    expect(calls).toHaveLength(4);
    expect(sleeps).toEqual([250, 500, 1000]);
    const net = client([new TypeError('a'), new TypeError('b'), new TypeError('c'), new TypeError('d')]);
    await expect(net.c.meta.getMe()).rejects.toBeInstanceOf(PartnerNetworkError);
    expect(net.calls).toHaveLength(4);
  });

  it('retries a 409 that changed nothing (contention, the key still running) with the same key, after Retry-After', async () => {
    const { c, calls, sleeps } = client([
      err(409, 'booking.slot.contended', { 'retry-after': '1' }),
      err(409, 'idempotency.request.in_progress', { 'retry-after': '2' }),
      json(201, { id: 'b' }),
    ]);
    const b = await c.quotes.create({ body: { rate_pack_id: 'r', start_date: '2026-12-01', start_time: null, travelers: [{ age: 30 }] } });
    expect(b).toEqual({ id: 'b' });
    expect(sleeps).toEqual([1000, 2000]);
    expect(new Set(calls.map((x) => x.headers['idempotency-key'])).size).toBe(1);
  });

  it('never retries a replayed answer (Idempotent-Replayed: true): it is the stored answer of that key', async () => {
    const { c, calls } = client([err(500, 'internal.error', { 'idempotent-replayed': 'true' }), json(201, { id: 'q' })]);
    const e = await c.quotes.create({ body: { rate_pack_id: 'r', start_date: '2026-12-01', start_time: null, travelers: [{ age: 30 }] } }).catch((x) => x);
    expect(calls).toHaveLength(1);
    expect(e).toMatchObject({ status: 500, code: 'internal.error' });
  });

  it('never retries anything else (400, 401, 404, a 409 of a business rule, 422)', async () => {
    for (const [status, code] of [
      [400, 'validation.field.invalid'],
      [401, 'auth.api_key.invalid'],
      [404, 'resource.not_found'],
      [409, 'booking.quote.already_booked'],
      [422, 'booking.slot.unavailable'],
    ] as const) {
      const { c, calls } = client([err(status, code, { 'retry-after': '1' }), json(200, {})]);
      const e = await c.meta.getMe().catch((x) => x);
      expect(calls, `${status}`).toHaveLength(1);
      expect(e).toMatchObject({ status, code, message: `m ${code}`, request_id: `req-${status}`, operation: 'getMe' });
    }
  });
});

describe('errors', () => {
  it('carry status, code, message, request_id and details, narrowed to the operation', async () => {
    const { c } = client([json(422, { code: 'payment.amount.mismatch', message: 'no', request_id: 'r1', details: { expected: '400.00' } })]);
    const e = await c.bookings
      .create({ body: { quote_id: 'q', partner_reference: 'p', customer_reference: 'c', contact: {} as never, travelers: [], payment_confirmation: 'x' } })
      .catch((x) => x);
    expect(e).toBeInstanceOf(PartnerApiError);
    expect(e.is('createBooking')).toBe(true);
    expect(e).toMatchObject({ status: 422, code: 'payment.amount.mismatch', request_id: 'r1', details: { expected: '400.00' } });
  });
  it("keep API Gateway's own answers as they come: http.<status>, its message or text, its apigw-requestid", async () => {
    const text = new Response('HTTP content length exceeded 10485760 bytes.', { status: 413, headers: { 'content-type': 'text; charset=utf-8' } });
    const { c } = client([text, json(413, { message: 'Request Entity Too Large' }, { 'apigw-requestid': 'gw-1' })]);
    expect(await c.meta.getMe().catch((x) => x)).toMatchObject({
      status: 413,
      code: 'http.413',
      message: 'HTTP content length exceeded 10485760 bytes.',
      request_id: '',
    });
    expect(await c.meta.getMe().catch((x) => x)).toMatchObject({ status: 413, code: 'http.413', message: 'Request Entity Too Large', request_id: 'gw-1' });
  });
});

describe('pagination', () => {
  it('iterates every page of a keyset list, then stops', async () => {
    const { c, calls } = client([
      json(200, { data: [{ id: 1 }, { id: 2 }], meta: { count: 2, next_cursor: 'c2' } }),
      json(200, { data: [{ id: 3 }], meta: { count: 1, next_cursor: null } }),
    ]);
    const seen: unknown[] = [];
    for await (const q of c.quotes.list({ limit: 2 })) seen.push(q);
    expect(seen).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(calls.map((x) => x.url)).toEqual(['http://api.test/v1/quotes?limit=2', 'http://api.test/v1/quotes?limit=2&cursor=c2']);
  });

  it('iterates the offset-paged catalog the same way', async () => {
    const { c } = client([
      json(200, { data: [{ slug: 'a' }], meta: { count: 1, next_cursor: 'o1', total_results: 2, page_number: 1 } }),
      json(200, { data: [{ slug: 'b' }], meta: { count: 1, total_results: 2, page_number: 2 } }),
    ]);
    expect(await c.catalog.listAdventures({ city: 'Fes', limit: 1 }).toArray()).toEqual([{ slug: 'a' }, { slug: 'b' }]);
  });
});

describe('the sandbox clock (client.testHelpers.clock)', () => {
  const clock = (status: 'ready' | 'advancing', now: string, advancing_to: string | null = null) =>
    json(200, { now, status, advanced_by_seconds: 60, advancing_to });

  it('advance sends a Date as its ISO instant with an Idempotency-Key, and waits until ready by reading the clock every second', async () => {
    const to = '2026-12-01T00:00:00.000Z';
    const { c, calls, sleeps } = client([
      clock('advancing', '2026-11-27T00:00:00.000Z', to),
      clock('advancing', '2026-11-29T00:00:00.000Z', to),
      clock('ready', to),
    ]);
    const ready = await c.testHelpers.clock.advance({ to: new Date(to), waitUntilReady: true, idempotencyKey: 'adv-1' });
    expect(ready).toMatchObject({ status: 'ready', now: to });
    expect(calls.map((x) => `${x.method} ${x.url}`)).toEqual([
      'POST http://api.test/v1/test-helpers/clock/advance',
      'GET http://api.test/v1/test-helpers/clock',
      'GET http://api.test/v1/test-helpers/clock',
    ]);
    expect(JSON.parse(calls[0]!.body!)).toEqual({ to });
    expect(calls[0]!.headers['idempotency-key']).toBe('adv-1');
    expect(sleeps).toEqual([1000, 1000]);
  });

  it('answers advancing as it is without waitUntilReady; get reads the clock', async () => {
    const { c, calls } = client([clock('advancing', '2026-11-27T00:00:00.000Z', '2026-12-01T00:00:00.000Z'), clock('ready', '2026-11-27T00:00:00.000Z')]);
    expect(await c.testHelpers.clock.advance({ to: '2026-12-01T00:00:00Z' })).toMatchObject({ status: 'advancing' });
    expect(calls[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(await c.testHelpers.clock.get()).toMatchObject({ status: 'ready' });
    await expect(c.testHelpers.clock.advance({ to: new Date(Number.NaN) })).rejects.toThrow(RangeError);
    expect(calls).toHaveLength(2);
  });

  it('gives up waiting at timeoutMs with SandboxClockTimeoutError holding the clock as last read', async () => {
    let now = 0;
    const f = fakeFetch(Array.from({ length: 5 }, () => clock('advancing', '2026-11-27T00:00:00.000Z', '2026-12-01T00:00:00.000Z')));
    const c = createClient({
      apiKey: 'sk_test_abcdefabcdef_0123456789abcdef0123456789abcdef',
      baseUrl: 'http://api.test/v1',
      fetch: f.fetch,
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    });
    const e = await c.testHelpers.clock.advance({ to: '2026-12-01T00:00:00Z', waitUntilReady: { timeoutMs: 2500, intervalMs: 1000 } }).catch((x) => x);
    expect(e).toBeInstanceOf(SandboxClockTimeoutError);
    expect(e.clock).toMatchObject({ status: 'advancing', advancing_to: '2026-12-01T00:00:00.000Z' });
    expect(f.calls).toHaveLength(4);
  });
});
