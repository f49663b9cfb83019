import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import { packs, quoteFor } from './booking-helpers';
import { type ApiResponse, admin, api, memberWithRole, newPartner, signatureHeaders, write } from './helpers';

const raw = (key: string, method: string, path: string, bytes: Uint8Array, headers: Record<string, string> = {}) =>
  api(method, path, { key, rawBody: bytes, headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID(), ...headers } });

describe('a peer admin cannot hold a working key of another PARTNER_ADMIN', () => {
  it('demote, issue a key for the peer, promote again: the key stops working and is listed revoked', async () => {
    const p = await newPartner();
    const peer = await memberWithRole('PARTNER_ADMIN', p);
    expect((await write('PATCH', `/team/members/${peer.memberId}/role`, p.live_key, { role: 'VIEWER' })).status).toBe(200);
    const issued = await write('POST', '/api-keys', p.live_key, { member_id: peer.memberId });
    expect(issued.status).toBe(201);
    const stolen = issued.body.key as string;
    expect((await api('GET', '/me', { key: stolen })).body.member.role).toBe('VIEWER');
    expect((await write('PATCH', `/team/members/${peer.memberId}/role`, p.live_key, { role: 'PARTNER_ADMIN' })).status).toBe(200);
    const me = await api('GET', '/me', { key: stolen });
    expect(me.status).toBe(401);
    expect(me.body.code).toBe('auth.api_key.invalid');
    // It cannot be used to change the issuer's own role either.
    expect((await write('PATCH', `/team/members/${p.member_id}/role`, stolen, { role: 'VIEWER' })).status).toBe(401);
    const keys = (await api('GET', '/api-keys', { key: p.live_key })).body.data;
    expect(keys.find((k: { id: string }) => k.id === issued.body.id)).toMatchObject({ status: 'REVOKED', issued_by: p.member_id });
    // The peer's own keys (issued by the operators) keep working.
    expect((await api('GET', '/me', { key: peer.liveKey })).status).toBe(200);
  });
});

describe('sandbox keys never change production permissions', () => {
  it('PATCH role with a sandbox key: 403 auth.environment.live_required; with a signed live key: done', async () => {
    const p = await newPartner();
    const dev = await memberWithRole('DEVELOPER', p);
    const sandbox = await write('PATCH', `/team/members/${dev.memberId}/role`, p.test_key, { role: 'FINANCE' });
    expect(sandbox.status).toBe(403);
    expect(sandbox.body.code).toBe('auth.environment.live_required');
    expect((await api('GET', '/me', { key: dev.liveKey })).body.member.role).toBe('DEVELOPER');
    expect((await write('PATCH', `/team/members/${dev.memberId}/role`, p.live_key, { role: 'FINANCE' })).status).toBe(200);
    // A sandbox key still manages sandbox keys.
    expect((await write('POST', '/api-keys', p.test_key, { member_id: dev.memberId })).status).toBe(201);
  });
});

describe('signed live writes', () => {
  it('a signature is accepted once: replayed with another Idempotency-Key it is 401 auth.signature.replayed; with its own key it replays', async () => {
    const p = await newPartner();
    const P = await packs(p.test_key);
    const body = JSON.stringify({ rate_pack_id: P.FLEXIBLE.id, start_date: addDays(localDate(new Date()), 6), start_time: null, travelers: [{ age: 30 }] });
    const signed = signatureHeaders(p.live_key, 'POST', '/quotes', body);
    const k1 = randomUUID();
    const first = await api('POST', '/quotes', { key: p.live_key, rawBody: body, headers: { ...signed, 'idempotency-key': k1 } });
    expect(first.status, first.text).toBe(201);
    const k2 = randomUUID();
    const replayed = await api('POST', '/quotes', { key: p.live_key, rawBody: body, headers: { ...signed, 'idempotency-key': k2 } });
    expect(replayed.status).toBe(401);
    expect(replayed.body.code).toBe('auth.signature.replayed');
    const retry = await api('POST', '/quotes', { key: p.live_key, rawBody: body, headers: { ...signed, 'idempotency-key': k1 } });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    expect((await api('GET', '/quotes', { key: p.live_key })).body.data).toHaveLength(1);
    // The key is claimed while the signature is recorded: the refused request gave its claim back, so k2 runs a fresh, signed request.
    const fresh = await api('POST', '/quotes', {
      key: p.live_key,
      rawBody: body,
      headers: { ...signatureHeaders(p.live_key, 'POST', '/quotes', body), 'idempotency-key': k2 },
    });
    expect(fresh.status, fresh.text).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect((await api('GET', '/quotes', { key: p.live_key })).body.data).toHaveLength(2);
  });

  it('a live write without X-Timestamp says so: 401 auth.timestamp.missing', async () => {
    const p = await newPartner();
    const r = await api('POST', '/api-keys', {
      key: p.live_key,
      body: { member_id: p.member_id },
      headers: { 'idempotency-key': randomUUID(), 'x-signature': '0'.repeat(64) },
    });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('auth.timestamp.missing');
  });
});

describe('duplicate JSON keys', () => {
  it('PATCH role with {"role":"VIEWER","role":"PARTNER_ADMIN"}: 400 naming the key, the member unchanged; nested keys are named by path', async () => {
    const p = await newPartner();
    const dev = await memberWithRole('DEVELOPER', p);
    const path = `/team/members/${dev.memberId}/role`;
    const bytes = new TextEncoder().encode('{"role":"VIEWER","role":"PARTNER_ADMIN"}');
    const r = await raw(p.live_key, 'PATCH', path, bytes, signatureHeaders(p.live_key, 'PATCH', path, bytes));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'request.body.duplicate_key', message: expect.stringContaining("'role'"), details: { field: 'role' } });
    const members = (await api('GET', '/team/members', { key: p.live_key })).body.data as { id: string; role: string }[];
    expect(members.find((m) => m.id === dev.memberId)?.role).toBe('DEVELOPER');
    // The same key in two different objects is fine; twice in one nested object is not.
    const quote = new TextEncoder().encode('{"rate_pack_id":"x","start_date":"2030-01-01","travelers":[{"age":30},{"age":31,"age":5}]}');
    const nested = await raw(p.test_key, 'POST', '/quotes', quote);
    expect(nested.status).toBe(400);
    expect(nested.body).toMatchObject({ code: 'request.body.duplicate_key', details: { field: 'travelers.1.age' } });
  });
});

describe('byte-exact bodies', () => {
  const json = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
  const withBom = (b: Uint8Array) => new Uint8Array([0xef, 0xbb, 0xbf, ...b]);

  it('the signature covers the bytes sent, a byte order mark included; a body with one is refused as JSON, saying why', async () => {
    const p = await newPartner();
    const bytes = withBom(json({ member_id: p.member_id }));
    const signedWithBom = await raw(p.live_key, 'POST', '/api-keys', bytes, signatureHeaders(p.live_key, 'POST', '/api-keys', bytes));
    expect(signedWithBom.status).toBe(400);
    expect(signedWithBom.body).toMatchObject({ code: 'request.body.malformed_json', message: expect.stringContaining('byte order mark') });
    const signedWithout = await raw(
      p.live_key,
      'POST',
      '/api-keys',
      bytes,
      signatureHeaders(p.live_key, 'POST', '/api-keys', json({ member_id: p.member_id })),
    );
    expect(signedWithout.status).toBe(401);
    expect(signedWithout.body.code).toBe('auth.signature.invalid');
  });

  it('a body that is not UTF-8 is a 400, and two such bodies never replay each other under one key', async () => {
    const p = await newPartner();
    const key = randomUUID();
    const a = new Uint8Array([...json({ member_id: p.member_id }).slice(0, -1), 0x20, 0xff, 0x7d]);
    const b = new Uint8Array([...json({ member_id: p.member_id }).slice(0, -1), 0x20, 0xfe, 0x7d]);
    for (const body of [a, b]) {
      const r = await raw(p.test_key, 'POST', '/api-keys', body, { 'idempotency-key': key });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('request.body.invalid_utf8');
      expect(r.headers.get('idempotent-replayed')).toBeNull();
    }
    // Nothing was stored under the key: a valid request with it runs.
    expect((await raw(p.test_key, 'POST', '/api-keys', json({ member_id: p.member_id }), { 'idempotency-key': key })).status).toBe(201);
  });
});

/** Counters live in one-minute windows: start a run that must stay in one window well before the minute ends. */
async function awayFromMinuteEnd() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 50));
}

describe('rate limits and failed authentication', () => {
  it('401s carry the X-RateLimit-* headers of the failed-authentication budget; past 20 failures a minute for one key id, 429 with Retry-After', async () => {
    const p = await newPartner();
    const keyId = p.test_key.split('_')[2];
    const wrong = `sk_test_${keyId}_${'x'.repeat(32)}`;
    // From another loopback address, so the per-address budget of the other suites is not touched.
    const statuses: number[] = [];
    let last: ApiResponse | undefined;
    await awayFromMinuteEnd();
    for (let i = 0; i < 22; i++) {
      last = await api('GET', '/me', { key: wrong, localAddress: '127.0.0.2' });
      statuses.push(last.status);
      if (i === 0) expect(last.headers.get('x-ratelimit-limit')).toBe('20');
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20)).toEqual([429, 429]);
    expect(last!.body.code).toBe('rate_limit.exceeded');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
    // The owner of the key is not locked out: the right secret still works.
    expect((await api('GET', '/me', { key: p.test_key, localAddress: '127.0.0.2' })).status).toBe(200);
  });

  it('too many failed authentications from one address: 429, whatever the key ids', async () => {
    const statuses: number[] = [];
    await awayFromMinuteEnd();
    for (let i = 0; i < 102; i++) {
      const r = await api('GET', '/me', { key: `sk_test_${randomUUID().replaceAll('-', '').slice(0, 12)}_${'y'.repeat(32)}`, localAddress: '127.0.0.3' });
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 100).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(100)).toEqual([429, 429]);
  });

  it('an unknown path with a valid key is counted: its 404 carries the rate-limit headers; with a bad key it is a 401', async () => {
    const p = await newPartner();
    const r = await api('GET', '/no-such-thing', { key: p.test_key });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('request.route.not_found');
    expect(r.headers.get('x-ratelimit-limit')).toBe('600');
    expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeLessThan(600);
    const bad = await api('GET', '/no-such-thing', { key: `${p.test_key.slice(0, -1)}Z` });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('x-ratelimit-limit')).toBeTruthy();
  });

  it('/health is public and unmetered: no key, no counter, no rate-limit headers', async () => {
    const r = await api('GET', '/health');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('strict, helpful inputs', () => {
  it('an unknown query parameter is a 400 naming it, on lists and on routes that take none', async () => {
    const p = await newPartner();
    const r = await api('GET', '/adventures?citty=Fes', { key: p.test_key });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'validation.parameter.unknown', details: { errors: [{ field: 'citty', location: 'query' }] } });
    expect(r.body.message).toContain('city');
    const me = await api('GET', '/me?verbose=1', { key: p.test_key });
    expect(me.status).toBe(400);
    expect(me.body.code).toBe('validation.parameter.unknown');
  });

  it('availability refuses a range that is reversed or entirely in the past', async () => {
    const p = await newPartner();
    const P = await packs(p.test_key);
    const today = localDate(new Date());
    const past = await api('GET', `/adventures/${P.FLEXIBLE.slug}/availability?from=${addDays(today, -60)}&to=${addDays(today, -58)}`, { key: p.test_key });
    expect(past.status).toBe(400);
    expect(past.body.details.errors[0]).toMatchObject({ field: 'to', expected: `on or after ${today}` });
    const reversed = await api('GET', `/adventures/${P.FLEXIBLE.slug}/availability?from=${addDays(today, 5)}&to=${addDays(today, 3)}`, { key: p.test_key });
    expect(reversed.status).toBe(400);
  });

  it('POST /bookings/{n}/cancel takes an empty body (every field is optional)', async () => {
    const { bookingBody, paidClaims, sandboxPaymentKey, signPayment } = await import('./booking-helpers');
    const p = await newPartner();
    const P = await packs(p.test_key);
    const jwk = await sandboxPaymentKey(p.partner_id);
    const q = await quoteFor(p.test_key, P.FLEXIBLE, addDays(localDate(new Date()), 8));
    const b = await write('POST', '/bookings', p.test_key, bookingBody(q, await signPayment(jwk, paidClaims(q))));
    const cancelled = await api('POST', `/bookings/${b.body.booking_number}/cancel`, { key: p.test_key, headers: { 'idempotency-key': randomUUID() } });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.cancellation.reason).toBeNull();
  });
});

describe('admin CLI', () => {
  it('key:issue refuses an expiry in the past; member:disable says which of two causes refused it', async () => {
    const p = await newPartner();
    const past = await admin([
      'key:issue',
      '--partner',
      p.partner_id,
      '--member',
      p.member_id,
      '--env',
      'test',
      '--expires-at',
      '2020-01-01T00:00:00Z',
      '--json',
    ]);
    expect(past.code).toBe(2);
    expect(past.stderr).toContain('must be in the future');
    const last = await admin(['member:disable', '--partner', p.partner_id, '--member', p.member_id, '--json']);
    expect(last.code).toBe(1);
    expect(JSON.parse(last.stderr).error.message).toContain('is the last enabled PARTNER_ADMIN');
    expect(JSON.parse(last.stderr).error.message).not.toContain('concurrently');
  });

  it('finds the one running local stack without PORT, and lists them when several run', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const run = (env: Record<string, string | undefined>) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'partner:list', '--json'], {
        cwd: join(import.meta.dirname, '..', '..'),
        env,
      }).then(
        (r) => ({ code: 0, stderr: r.stderr }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      );
    const env = { ...process.env, PORT: undefined, LOCAL_STATE_DIR: inject('stateDir') };
    expect((await run(env)).code).toBe(0);
    // A second stack on the same state directory (this test process stands in for it).
    const fake = join(inject('stateDir'), 'runtime-1.json');
    writeFileSync(fake, JSON.stringify({ pid: process.pid, port: 1, baseUrl: 'http://127.0.0.1:1/v1', stateDir: inject('stateDir'), env: {} }));
    try {
      const several = await run(env);
      expect(several.code).toBe(2);
      expect(several.stderr).toContain('PORT=1');
      expect(several.stderr).toContain(`PORT=${inject('port')}`);
    } finally {
      (await import('node:fs')).rmSync(fake);
    }
  });
});
