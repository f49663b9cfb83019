import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../sdk/src/index';
import { addDays, localDate } from '../../shared/kernel/time';
import { platformKeys } from '../../shared/platform/keys';
import { bookingBody, packs, paidClaims, quoteFor, sandboxPaymentKey, signPayment } from './booking-helpers';
import { api, baseUrl, memberWithRole, newPartner, signatureHeaders, testDb, write } from './helpers';

const keyCount = async (key: string) => (await api('GET', '/api-keys?limit=100', { key })).body.data.length as number;

describe('Idempotency-Key', () => {
  it('is required on writes: missing, blank or over 255 characters -> 400', async () => {
    const p = await newPartner();
    const send = (headers: Record<string, string>) => api('POST', '/api-keys', { key: p.test_key, body: { member_id: p.member_id }, headers });
    expect((await send({})).body.code).toBe('idempotency.key.missing');
    expect((await send({ 'idempotency-key': '   ' })).body.code).toBe('idempotency.key.invalid');
    const long = await send({ 'idempotency-key': 'x'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.code).toBe('idempotency.key.invalid');
    expect((await send({ 'idempotency-key': 'x'.repeat(255) })).status).toBe(201);
  });

  it('replays the stored response for the same request without running it again', async () => {
    const p = await newPartner();
    const idem = randomUUID();
    const first = await write('POST', '/api-keys', p.test_key, { member_id: p.member_id }, { idempotencyKey: idem });
    const again = await write('POST', '/api-keys', p.test_key, { member_id: p.member_id }, { idempotencyKey: idem });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The same stored response, except the secret that is shown once.
    expect(again.body).toEqual({ ...first.body, key: null });
    expect(again.headers.get('x-request-id')).toBe(first.headers.get('x-request-id'));
    expect(await keyCount(p.test_key)).toBe(2); // the partner's own key + one created
  });

  it('same key with a different body, method or path -> 409 idempotency.key.reused', async () => {
    const p = await newPartner();
    const idem = randomUUID();
    await write('POST', '/api-keys', p.test_key, { member_id: p.member_id }, { idempotencyKey: idem });
    const other = await write('POST', '/api-keys', p.test_key, { member_id: randomUUID() }, { idempotencyKey: idem });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('idempotency.key.reused');
    const otherPath = await write('DELETE', '/api-keys/abcdefabcdef', p.test_key, undefined, { idempotencyKey: idem });
    expect(otherPath.body.code).toBe('idempotency.key.reused');
  });

  it('is scoped to (partner, environment, key)', async () => {
    const a = await newPartner();
    const b = await newPartner();
    const idem = randomUUID();
    const t = await write('POST', '/api-keys', a.test_key, { member_id: a.member_id }, { idempotencyKey: idem });
    const l = await write('POST', '/api-keys', a.live_key, { member_id: a.member_id }, { idempotencyKey: idem });
    const other = await write('POST', '/api-keys', b.test_key, { member_id: b.member_id }, { idempotencyKey: idem });
    for (const r of [t, l, other]) {
      expect(r.status).toBe(201);
      expect(r.headers.get('idempotent-replayed')).toBeNull();
    }
  });

  it('does not store validation failures (the request never ran) but stores business outcomes', async () => {
    const p = await newPartner();
    const idem = randomUUID();
    const invalid = await write('POST', '/api-keys', p.test_key, { member_id: 'not-a-uuid' }, { idempotencyKey: idem });
    expect(invalid.status).toBe(400);
    const fixed = await write('POST', '/api-keys', p.test_key, { member_id: p.member_id }, { idempotencyKey: idem });
    expect(fixed.status).toBe(201);

    const idem2 = randomUUID();
    const missing = await write('PATCH', `/team/members/${randomUUID()}/role`, p.live_key, { role: 'VIEWER' }, { idempotencyKey: idem2 });
    expect(missing.status).toBe(404);
    const replayed = await write('PATCH', `/team/members/${missing.body.details.id}/role`, p.live_key, { role: 'VIEWER' }, { idempotencyKey: idem2 });
    expect(replayed.status).toBe(404);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.request_id).toBe(missing.body.request_id);
    expect(replayed.headers.get('x-request-id')).toBe(replayed.body.request_id);
  });

  it('20 concurrent identical writes run the operation exactly once', async () => {
    const p = await newPartner();
    const before = await keyCount(p.test_key);
    const idem = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => write('POST', '/api-keys', p.test_key, { member_id: p.member_id }, { idempotencyKey: idem })),
    );
    const created = answers.filter((a) => a.status === 201);
    const inProgress = answers.filter((a) => a.status === 409);
    expect(created.length + inProgress.length).toBe(20);
    expect(inProgress.every((a) => a.body.code === 'idempotency.request.in_progress')).toBe(true);
    expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
    expect(created.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(await keyCount(p.test_key)).toBe(before + 1);
  });

  it('a request whose worker died mid-flight is taken over once its lock has expired', async () => {
    const p = await newPartner();
    const { ddb, accessTable } = testDb();
    const body = JSON.stringify({ member_id: p.member_id });
    const { fingerprint } = await import('../../shared/platform/idempotency');
    const put = (idem: string, lockedUntil: number) =>
      ddb.send(
        new PutCommand({
          TableName: accessTable,
          Item: {
            ...platformKeys.idempotency(p.partner_id, 'test', idem),
            fingerprint: fingerprint('POST', '/v1/api-keys', body),
            state: 'IN_PROGRESS',
            lock_token: 'dead-worker',
            locked_until: lockedUntil,
            expires_at: Date.now() + 3_600_000,
            request_id: 'dead',
          },
        }),
      );
    const live = randomUUID();
    await put(live, Date.now() + 60_000);
    const blocked = await api('POST', '/api-keys', { key: p.test_key, rawBody: body, headers: { 'idempotency-key': live } });
    expect(blocked.status).toBe(409);
    expect(blocked.body.code).toBe('idempotency.request.in_progress');

    const dead = randomUUID();
    await put(dead, Date.now() - 1);
    const retried = await api('POST', '/api-keys', { key: p.test_key, rawBody: body, headers: { 'idempotency-key': dead } });
    expect(retried.status).toBe(201);
  });

  it('a claim left by a request that died: 409 with Retry-After until it runs out, and the SDK, waiting that long, gets its retry run', async () => {
    const p = await newPartner();
    const { ddb, accessTable } = testDb();
    const body = { member_id: p.member_id };
    const { fingerprint } = await import('../../shared/platform/idempotency');
    const idem = randomUUID();
    // What a request killed mid-flight leaves: its claim, 6 s from running out.
    await ddb.send(
      new PutCommand({
        TableName: accessTable,
        Item: {
          ...platformKeys.idempotency(p.partner_id, 'test', idem),
          fingerprint: fingerprint('POST', '/v1/api-keys', JSON.stringify(body)),
          state: 'IN_PROGRESS',
          lock_token: 'dead-worker',
          locked_until: Date.now() + 6_000,
          expires_at: Date.now() + 3_600_000,
          request_id: 'dead',
        },
      }),
    );
    const blocked = await api('POST', '/api-keys', { key: p.test_key, rawBody: JSON.stringify(body), headers: { 'idempotency-key': idem } });
    expect(blocked.status).toBe(409);
    expect(blocked.body.code).toBe('idempotency.request.in_progress');
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(5);
    expect(retryAfter).toBeLessThanOrEqual(6);
    // The SDK honours it (3 retries of 1 s gave up inside the claim before).
    const client = createClient({ apiKey: p.test_key, baseUrl: baseUrl() });
    const started = Date.now();
    const created = await client.request('createApiKey', { body, idempotencyKey: idem });
    expect(created.member_id).toBe(p.member_id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);
  });

  it("a request's claim lasts its function's timeout and a second; a retry meanwhile is told the time left", async () => {
    const p = await newPartner();
    // The endpoint holds the test send 4 s: the request (a route of 20 s) is in flight meanwhile.
    const server = createServer((req, res) => {
      req.resume();
      setTimeout(() => res.writeHead(200).end('ok'), 4_000);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const hook = await write('POST', '/webhooks', p.test_key, {
        url: `http://localhost:${(server.address() as AddressInfo).port}/hold`,
        event_types: ['booking.confirmed'],
      });
      expect(hook.status, hook.text).toBe(201);
      const idem = randomUUID();
      const first = write('POST', `/webhooks/${hook.body.id}/test`, p.test_key, {}, { idempotencyKey: idem });
      await new Promise((r) => setTimeout(r, 1_500));
      const { ddb, accessTable } = testDb();
      const claim = (await ddb.send(new GetCommand({ TableName: accessTable, Key: platformKeys.idempotency(p.partner_id, 'test', idem) }))).Item!;
      expect(claim.state).toBe('IN_PROGRESS');
      expect(claim.locked_until - Date.parse(claim.created_at)).toBe(21_000);
      const again = await write('POST', `/webhooks/${hook.body.id}/test`, p.test_key, {}, { idempotencyKey: idem });
      expect(again.status).toBe(409);
      const left = Math.ceil((claim.locked_until - Date.now()) / 1000);
      expect(Math.abs(Number(again.headers.get('retry-after')) - left)).toBeLessThanOrEqual(1);
      expect((await first).status).toBe(200);
    } finally {
      server.close();
    }
  });

  it('forgets a key after 24 hours even before TTL deletes the record', async () => {
    const p = await newPartner();
    const { ddb, accessTable } = testDb();
    const idem = randomUUID();
    const first = await write('POST', '/api-keys', p.test_key, { member_id: p.member_id }, { idempotencyKey: idem });
    // Age the record past its retention; TTL has not removed it yet.
    await ddb.send(
      new UpdateCommand({
        TableName: accessTable,
        Key: platformKeys.idempotency(p.partner_id, 'test', idem),
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': Date.now() - 1000 },
      }),
    );
    const later = await write('POST', '/api-keys', p.test_key, { member_id: p.member_id }, { idempotencyKey: idem });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
  });

  it('does not store a 500 of an operation that failed before its commit: the retry with the same key runs it, once', async () => {
    const p = await newPartner();
    const jwk = await sandboxPaymentKey(p.partner_id);
    const pack = (await packs(p.test_key)).FLEXIBLE;
    const date = addDays(localDate(new Date()), 45);
    const seatsLeft = async () =>
      (await api('GET', `/adventures/${pack.slug}/availability?from=${date}&to=${date}&rate_pack_id=${pack.id}`, { key: p.test_key })).body.data[0]
        .remaining as number;
    const before = await seatsLeft();
    const quote = await quoteFor(p.test_key, pack, date);
    const body = bookingBody(quote, await signPayment(jwk, paidClaims(quote)));
    const idempotencyKey = randomUUID();
    // X-Fault-Inject: at-commit (test stack only): the booking's transaction is throttled, nothing of it is written.
    const failed = await write('POST', '/bookings', p.test_key, body, { idempotencyKey, headers: { 'x-fault-inject': 'at-commit' } });
    expect(failed.status, failed.text).toBe(500);
    expect(failed.body.code).toBe('internal.error');
    expect(await seatsLeft()).toBe(before);

    const retry = await write('POST', '/bookings', p.test_key, body, { idempotencyKey });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body).toMatchObject({ status: 'CONFIRMED', quote_id: quote.id });

    // Once committed, the answer is stored: the next retry replays it and books nothing more.
    const again = await write('POST', '/bookings', p.test_key, body, { idempotencyKey });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(retry.body);
    expect((await api('GET', '/bookings', { key: p.test_key })).body.data).toHaveLength(1);
    expect(await seatsLeft()).toBe(before - 1);
  });

  it('keeps a 500 of a route that acts outside its commit (a webhook test send): a retry with the same key replays it', async () => {
    let received = 0;
    const receiver = createServer((_, res) => {
      received++;
      res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const p = await newPartner();
      const url = `http://localhost:${(receiver.address() as { port: number }).port}/hook`;
      const created = await write('POST', '/webhooks', p.test_key, { url, event_types: ['booking.confirmed'] });
      expect(created.status, created.text).toBe(201);
      const idempotencyKey = randomUUID();
      const path = `/webhooks/${created.body.id}/test`;
      // The event reached the endpoint, then the answer's commit failed: a rerun would send it again.
      const failed = await write('POST', path, p.test_key, {}, { idempotencyKey, headers: { 'x-fault-inject': 'at-commit' } });
      expect(failed.status, failed.text).toBe(500);
      const retry = await write('POST', path, p.test_key, {}, { idempotencyKey });
      expect(retry.status).toBe(500);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(received).toBe(1);
    } finally {
      receiver.close();
    }
  });
});

/**
 * A write claims its Idempotency-Key in its authentication's stage, once the key is known genuine
 * (shared/http/early-claim.ts): each refusal below comes after that claim, and must leave nothing a later request
 * sees. Each key is first used once, so the running handlers know whose it is and claim beside the reads.
 */
describe('a write refused before it runs leaves no claim behind', () => {
  const warm = async (...keys: string[]) => {
    for (const key of keys) expect((await api('GET', '/me', { key })).status).toBe(200);
  };
  const hookOf = async (key: string, url: string) => {
    const created = await write('POST', '/webhooks', key, { url, event_types: ['booking.confirmed'] });
    expect(created.status, created.text).toBe(201);
    return `/webhooks/${created.body.id}`;
  };

  it('a revoked key, a role without the scope, an invalid body: the same Idempotency-Key then runs a valid request', async () => {
    const dev = await memberWithRole('DEVELOPER');
    const viewer = await memberWithRole('VIEWER', dev.partner);
    const admin = dev.partner.test_key;
    const path = await hookOf(admin, 'http://localhost:9/early-claim');
    await warm(dev.testKey, viewer.testKey);
    expect((await write('DELETE', `/api-keys/${dev.testKey.split('_')[2]}`, admin)).status).toBe(200);
    const [revoked, unscoped, invalid] = [randomUUID(), randomUUID(), randomUUID()];
    expect((await write('PATCH', path, dev.testKey, { description: 'x' }, { idempotencyKey: revoked })).body.code).toBe('auth.api_key.invalid');
    expect((await write('PATCH', path, viewer.testKey, { description: 'x' }, { idempotencyKey: unscoped })).body.code).toBe('auth.scope.insufficient');
    expect((await write('PATCH', path, admin, { description: 7 }, { idempotencyKey: invalid })).status).toBe(400);
    for (const idempotencyKey of [revoked, unscoped, invalid]) {
      const ran = await write('PATCH', path, admin, { description: `after ${idempotencyKey}` }, { idempotencyKey });
      expect(ran.status, ran.text).toBe(200);
      expect(ran.headers.get('idempotent-replayed')).toBeNull();
      expect(ran.body.description).toBe(`after ${idempotencyKey}`);
    }
  });

  it('a live version 1 signature refused with its request is not taken as accepted', async () => {
    const viewer = await memberWithRole('VIEWER');
    const path = await hookOf(viewer.partner.live_key, 'http://localhost:9/early-claim');
    await warm(viewer.liveKey);
    const raw = JSON.stringify({ description: 'signed once' });
    // One signature (version 1 signs no Idempotency-Key), sent twice under two keys.
    const signed = { 'content-type': 'application/json', ...signatureHeaders(viewer.liveKey, 'PATCH', path, raw) };
    const send = () => api('PATCH', path, { key: viewer.liveKey, rawBody: raw, headers: { ...signed, 'idempotency-key': randomUUID() } });
    expect((await send()).body.code).toBe('auth.scope.insufficient');
    expect((await write('PATCH', `/team/members/${viewer.memberId}/role`, viewer.partner.live_key, { role: 'DEVELOPER' })).status).toBe(200);
    const accepted = await send();
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.description).toBe('signed once');
  });
});
