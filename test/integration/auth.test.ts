import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { accessKeys } from '../../shared/access/keys';
import { LAST_USE_RETENTION_DAYS } from '../../shared/access/model';
import { platformKeys } from '../../shared/platform/keys';
import { admin, api, memberWithRole, newPartner, signatureHeaders, testDb, write } from './helpers';

describe('authentication', () => {
  it('401 auth.api_key.missing without Authorization', async () => {
    const r = await api('GET', '/me');
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('auth.api_key.missing');
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
  });

  it('401 auth.api_key.invalid for malformed, unknown, wrong-secret, revoked and expired keys', async () => {
    const p = await newPartner();
    const [, , , prefix, secret] = ['', ...p.test_key.split('_')];
    const wrongSecret = `sk_test_${prefix}_${secret!.slice(0, -1)}${secret!.endsWith('a') ? 'b' : 'a'}`;
    const wrongEnv = p.test_key.replace('sk_test_', 'sk_live_');
    for (const key of ['nonsense', 'sk_test_abc', `sk_test_zzzzzzzzzzzz_${'A'.repeat(32)}`, wrongSecret, wrongEnv]) {
      const r = await api('GET', '/me', { key });
      expect(r.status, key).toBe(401);
      expect(r.body.code).toBe('auth.api_key.invalid');
    }
    expect((await api('GET', '/me', { headers: { authorization: `Basic ${p.test_key}` } })).body.code).toBe('auth.api_key.invalid');

    expect((await api('GET', '/me', { key: p.test_key })).status).toBe(200);
    await admin(['key:revoke', '--key-id', p.test_key_id, '--json']);
    expect((await api('GET', '/me', { key: p.test_key })).body.code).toBe('auth.api_key.invalid');

    // A key can only be issued to expire in the future: issue one, then let its expiry pass (staged, as time would).
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const expired = await admin(['key:issue', '--partner', p.partner_id, '--member', p.member_id, '--env', 'test', '--expires-at', expiresAt, '--json']);
    expect(expired.code, expired.stderr).toBe(0);
    expect((await api('GET', '/me', { key: expired.json.key })).status).toBe(200);
    const { ddb, accessTable } = testDb();
    await ddb.send(
      new UpdateCommand({
        TableName: accessTable,
        Key: accessKeys.apiKey(expired.json.key_id),
        UpdateExpression: 'SET expires_at = :t',
        ExpressionAttributeValues: { ':t': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    expect((await api('GET', '/me', { key: expired.json.key })).body.code).toBe('auth.api_key.invalid');
  });

  it("a disabled member's keys stop working, and work again once enabled", async () => {
    const dev = await memberWithRole('DEVELOPER');
    expect((await api('GET', '/me', { key: dev.testKey })).status).toBe(200);
    await admin(['member:disable', '--partner', dev.partner.partner_id, '--member', dev.memberId, '--json']);
    expect((await api('GET', '/me', { key: dev.testKey })).body.code).toBe('auth.api_key.invalid');
    expect((await api('GET', '/me', { key: dev.liveKey })).body.code).toBe('auth.api_key.invalid');
    await admin(['member:enable', '--partner', dev.partner.partner_id, '--member', dev.memberId, '--json']);
    expect((await api('GET', '/me', { key: dev.testKey })).status).toBe(200);
  });

  it('GET /me describes the key: partner, environment, member, role, scopes, rate limit', async () => {
    const p = await newPartner('Me Bank');
    const test = await api('GET', '/me', { key: p.test_key });
    const live = await api('GET', '/me', { key: p.live_key });
    expect(test.body).toMatchObject({
      partner: { id: p.partner_id, name: 'Me Bank' },
      environment: 'test',
      test_mode: true,
      key: { id: p.test_key_id },
      member: { id: p.member_id, role: 'PARTNER_ADMIN' },
    });
    expect(test.body.scopes).toContain('team:manage');
    expect(test.body.rate_limit.limit_per_minute).toBe(600);
    expect(live.body).toMatchObject({ environment: 'live', test_mode: false, key: { key_id: p.live_key_id, id: p.live_key_id }, member: { id: p.member_id } });
  });
});

describe('environments', () => {
  it('keys and audit events are scoped to (partner, environment); foreign ids answer 404', async () => {
    const a = await newPartner();
    const b = await newPartner();
    const created = await write('POST', '/api-keys', a.test_key, { member_id: a.member_id });
    expect(created.status).toBe(201);
    expect(created.body.environment).toBe('test');

    const testKeys = (await api('GET', '/api-keys', { key: a.test_key })).body.data.map((k: { id: string }) => k.id);
    const liveKeys = (await api('GET', '/api-keys', { key: a.live_key })).body.data.map((k: { id: string }) => k.id);
    expect(testKeys).toContain(created.body.id);
    expect(liveKeys).not.toContain(created.body.id);
    expect(liveKeys).toEqual([a.live_key_id]);

    const liveAudit = (await api('GET', '/audit-events', { key: a.live_key })).body.data;
    expect(liveAudit.every((e: { environment: string }) => e.environment === 'live')).toBe(true);
    expect(liveAudit.some((e: { request_id: string }) => e.request_id === created.headers.get('x-request-id'))).toBe(false);

    // Partner B cannot see or touch partner A's key or member.
    expect((await write('DELETE', `/api-keys/${created.body.id}`, b.test_key)).status).toBe(404);
    expect((await write('DELETE', `/api-keys/${created.body.id}`, a.live_key)).status).toBe(404);
    expect((await write('PATCH', `/team/members/${a.member_id}/role`, b.live_key, { role: 'VIEWER' })).status).toBe(404);
    expect((await api('GET', '/team/members', { key: b.test_key })).body.data.map((m: { id: string }) => m.id)).not.toContain(a.member_id);
  });
});

describe('GET /api-keys after your own writes (the list reads its rows, never an index)', () => {
  it('lists a key the moment it is issued, and REVOKED the moment its revocation is answered', async () => {
    const p = await newPartner();
    const created = (await write('POST', '/api-keys', p.test_key, { member_id: p.member_id })).body;
    const listed = async () => (await api('GET', '/api-keys', { key: p.test_key })).body.data.map((k: { id: string; status: string }) => `${k.id} ${k.status}`);
    expect(await listed()).toEqual([`${created.id} ACTIVE`, `${p.test_key_id} ACTIVE`]);
    expect((await write('DELETE', `/api-keys/${created.id}`, p.test_key)).status).toBe(200);
    expect(await listed()).toEqual([`${created.id} REVOKED`, `${p.test_key_id} ACTIVE`]);
  });

  it('removing a member revokes the key issued for it a moment before', async () => {
    const p = await newPartner();
    const m = await memberWithRole('DEVELOPER', p);
    const fresh = (await write('POST', '/api-keys', p.test_key, { member_id: m.memberId })).body;
    expect((await write('DELETE', `/team/members/${m.memberId}`, p.live_key)).status).toBe(200);
    const keys = (await api('GET', '/api-keys', { key: p.test_key })).body.data as { id: string; status: string }[];
    expect(keys.find((k) => k.id === fresh.id)?.status).toBe('REVOKED');
  });
});

describe('keys a bank can tell apart: name and last use', () => {
  type Listed = { id: string; name: string | null; last_used_at: string | null; status: string };
  const listed = async (key: string) => (await api('GET', '/api-keys', { key })).body.data as Listed[];

  it('names a key at issue, and lists when each key was last used, from its rate-limit counter', async () => {
    const p = await newPartner();
    const before = Date.now();
    const named = await write('POST', '/api-keys', p.test_key, { member_id: p.member_id, name: '  payments-prod-eu1 ' });
    expect(named.status).toBe(201);
    expect(named.body).toMatchObject({ name: 'payments-prod-eu1', last_used_at: null });
    const unnamed = (await write('POST', '/api-keys', p.test_key, { member_id: p.member_id })).body;
    expect(unnamed.name).toBeNull();

    // Before any use of the new keys: the calling key has been used (these very requests), they have not.
    let keys = await listed(p.test_key);
    expect(keys.find((k) => k.id === named.body.id)).toMatchObject({ name: 'payments-prod-eu1', last_used_at: null });
    expect(keys.find((k) => k.id === unnamed.id)).toMatchObject({ name: null, last_used_at: null });
    expect(Date.parse(keys.find((k) => k.id === p.test_key_id)!.last_used_at!)).toBeGreaterThanOrEqual(before - 1000);

    // One request with the named key: the list says so at once (the counter's write is read strongly consistent).
    expect((await api('GET', '/me', { key: named.body.key })).status).toBe(200);
    keys = await listed(p.test_key);
    const used = keys.find((k) => k.id === named.body.id)!;
    expect(Date.parse(used.last_used_at!)).toBeGreaterThanOrEqual(before - 1000);
    expect(keys.find((k) => k.id === unnamed.id)!.last_used_at).toBeNull();

    // Set once per minute window: a second request in the same minute leaves it as it was.
    const { ddb, accessTable } = testDb();
    const window = (
      await ddb.send(
        new QueryCommand({
          TableName: accessTable,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': platformKeys.rateCounters(named.body.id) },
          ConsistentRead: true,
        }),
      )
    ).Items!;
    expect(window).toHaveLength(1);
    expect(window[0]!.used_at).toBe(used.last_used_at);
    expect(window[0]!.ttl).toBeGreaterThan(Date.now() / 1000 + (LAST_USE_RETENTION_DAYS - 1) * 86_400);

    // Revoked, the key keeps its name and last use: staff see what they revoked and whether it was in use.
    const revoked = await write('DELETE', `/api-keys/${named.body.id}`, p.test_key);
    expect(revoked.body).toMatchObject({ status: 'REVOKED', name: 'payments-prod-eu1', last_used_at: used.last_used_at });
  });

  it('refuses a name that is empty, too long, multi-line or carries bidi controls, with 400 validation.field.invalid', async () => {
    const p = await newPartner();
    for (const name of ['', '   ', 'x'.repeat(65), 'payments\nprod', 'pay\u202Eue1-dorp', 'a\u2066b', 42]) {
      const r = await write('POST', '/api-keys', p.test_key, { member_id: p.member_id, name });
      expect(r.status, JSON.stringify(name)).toBe(400);
      expect(r.body.code).toBe('validation.field.invalid');
      expect(r.body.details.errors[0]).toMatchObject({ field: 'name', location: 'body' });
    }
    expect((await write('POST', '/api-keys', p.test_key, { member_id: p.member_id, name: 'Paiements – prod é1 ✓'.padEnd(64, '.') })).status).toBe(201);
  });
});

describe('request signatures (live writes)', () => {
  const path = '/api-keys';

  it('accepts a correctly signed live write and refuses bad timestamps and signatures', async () => {
    const p = await newPartner();
    const body = JSON.stringify({ member_id: p.member_id });
    const send = (headers: Record<string, string>) =>
      api('POST', path, {
        key: p.live_key,
        rawBody: body,
        headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), ...headers },
      });

    expect((await send(signatureHeaders(p.live_key, 'POST', path, body))).status).toBe(201);

    const noTs = await send({ 'x-signature': signatureHeaders(p.live_key, 'POST', path, body)['x-signature'] });
    expect(noTs.status).toBe(401);
    expect(noTs.body.code).toBe('auth.timestamp.missing');

    const old = Math.floor(Date.now() / 1000) - 301;
    const stale = await send(signatureHeaders(p.live_key, 'POST', path, body, old));
    expect(stale.body.code).toBe('auth.timestamp.skew');
    const future = await send(signatureHeaders(p.live_key, 'POST', path, body, Math.floor(Date.now() / 1000) + 400));
    expect(future.body.code).toBe('auth.timestamp.skew');

    const noSig = await send({ 'x-timestamp': String(Math.floor(Date.now() / 1000)) });
    expect(noSig.body.code).toBe('auth.signature.invalid');

    // Reformatting the body after signing breaks the signature.
    const h = signatureHeaders(p.live_key, 'POST', path, body);
    const reformatted = await api('POST', path, {
      key: p.live_key,
      rawBody: JSON.stringify({ member_id: p.member_id }, null, 2),
      headers: { ...h, 'idempotency-key': crypto.randomUUID() },
    });
    expect(reformatted.body.code).toBe('auth.signature.invalid');

    // The query string is part of what is signed.
    const q = await api('POST', `${path}?note=1`, {
      key: p.live_key,
      rawBody: body,
      headers: { ...signatureHeaders(p.live_key, 'POST', path, body), 'idempotency-key': crypto.randomUUID() },
    });
    expect(q.body.code).toBe('auth.signature.invalid');
    const qOk = await api('POST', `${path}?note=1`, {
      key: p.live_key,
      rawBody: body,
      headers: { ...signatureHeaders(p.live_key, 'POST', `${path}?note=1`, body), 'idempotency-key': crypto.randomUUID() },
    });
    // Signed with its query string, the signature holds; the request then fails only on the parameter POST /api-keys does not take.
    expect(qOk.status).toBe(400);
    expect(qOk.body.code).toBe('validation.parameter.unknown');

    // Uppercase hex is not the documented format.
    const upper = signatureHeaders(p.live_key, 'POST', path, body);
    const up = await send({ ...upper, 'x-signature': upper['x-signature'].toUpperCase() });
    expect(up.body.code).toBe('auth.signature.invalid');
  });

  it('lets an admin issue keys for members but not for another admin, and records who issued them', async () => {
    const p = await newPartner();
    const dev = await memberWithRole('DEVELOPER', p);
    const admin2 = await memberWithRole('PARTNER_ADMIN', p);
    const forDev = await write('POST', path, p.test_key, { member_id: dev.memberId });
    expect(forDev.status).toBe(201);
    expect(forDev.body).toMatchObject({ member_id: dev.memberId, issued_by: p.member_id, environment: 'test' });
    const forAdmin = await write('POST', path, p.test_key, { member_id: admin2.memberId });
    expect(forAdmin.status).toBe(403);
    expect(forAdmin.body.code).toBe('team.key.other_admin');
    expect((await write('POST', path, p.test_key, { member_id: p.member_id })).status).toBe(201);
  });

  it('exempts sandbox writes and live reads', async () => {
    const p = await newPartner();
    const r = await api('POST', path, { key: p.test_key, body: { member_id: p.member_id }, headers: { 'idempotency-key': crypto.randomUUID() } });
    expect(r.status).toBe(201);
    expect((await api('GET', '/me', { key: p.live_key })).status).toBe(200);
  });

  it('signs DELETE too (empty body)', async () => {
    const p = await newPartner();
    const k = await write('POST', path, p.live_key, { member_id: p.member_id });
    const unsigned = await api('DELETE', `${path}/${k.body.id}`, { key: p.live_key, headers: { 'idempotency-key': crypto.randomUUID() } });
    expect(unsigned.body.code).toBe('auth.timestamp.missing');
    const signed = await write('DELETE', `${path}/${k.body.id}`, p.live_key);
    expect(signed.status).toBe(200);
    expect(signed.body.status).toBe('REVOKED');
  });
});

describe('scopes', () => {
  it('enforces the role -> scope mapping on every route with 403 auth.scope.insufficient', async () => {
    const p = await newPartner();
    const viewer = await memberWithRole('VIEWER', p);
    const dev = await memberWithRole('DEVELOPER', p);
    const fin = await memberWithRole('FINANCE', p);

    expect((await api('GET', '/team/members', { key: viewer.testKey })).status).toBe(200);
    const viewerWrite = await write('PATCH', `/team/members/${dev.memberId}/role`, viewer.testKey, { role: 'VIEWER' });
    expect(viewerWrite.status).toBe(403);
    expect(viewerWrite.body).toMatchObject({ code: 'auth.scope.insufficient', details: { required_scope: 'team:manage', role: 'VIEWER' } });

    expect((await api('GET', '/team/members', { key: dev.testKey })).body.code).toBe('auth.scope.insufficient');
    expect((await api('GET', '/audit-events', { key: dev.testKey })).status).toBe(200);
    expect((await api('GET', '/audit-events', { key: fin.testKey })).body.code).toBe('auth.scope.insufficient');
    expect((await api('GET', '/audit-events', { key: viewer.testKey })).body.code).toBe('auth.scope.insufficient');
    expect((await api('GET', '/api-keys', { key: dev.testKey })).body.code).toBe('auth.scope.insufficient');
    expect((await write('POST', '/api-keys', dev.testKey, { member_id: dev.memberId })).body.code).toBe('auth.scope.insufficient');
    expect((await write('DELETE', `/api-keys/${p.test_key_id}`, fin.testKey)).body.code).toBe('auth.scope.insufficient');
    expect((await api('GET', '/me', { key: p.test_key })).status).toBe(200);
    for (const k of [viewer.testKey, dev.testKey, fin.testKey]) expect((await api('GET', '/me', { key: k })).status).toBe(200);
  });
});
