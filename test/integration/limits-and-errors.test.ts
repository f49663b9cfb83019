import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { platformKeys } from '../../shared/platform/keys';
import { admin, api, memberWithRole, newPartner, testDb, write } from './helpers';

describe('rate limits', () => {
  it('carries the rate-limit headers on every keyed response, errors included, and answers 429 over the limit', async () => {
    const p = await newPartner();
    const set = await admin(['partner:set-rate-limit', '--partner', p.partner_id, '--per-minute', '5', '--json']);
    expect(set.json).toMatchObject({ partner_id: p.partner_id, rate_limit_per_minute: 5 });
    // Stay inside one window so the count is deterministic.
    const secs = new Date().getUTCSeconds();
    if (secs > 50) await new Promise((r) => setTimeout(r, (61 - secs) * 1000));

    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await api('GET', i === 2 ? '/audit-events?limit=0' : '/me', { key: p.test_key }));
    expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['4', '3', '2', '1', '0']);
    expect(answers[2]!.status).toBe(400); // an error still carries the headers
    for (const a of answers) {
      expect(a.headers.get('x-ratelimit-limit')).toBe('5');
      expect(Number(a.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    }
    const over = await api('GET', '/me', { key: p.test_key });
    expect(over.status).toBe(429);
    expect(over.body.code).toBe('rate_limit.exceeded');
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');

    // Per key: another key of the same partner has its own counter.
    expect((await api('GET', '/me', { key: p.live_key })).status).toBe(200);
    await admin(['partner:set-rate-limit', '--partner', p.partner_id, '--default', '--json']);
    expect((await api('GET', '/me', { key: p.live_key })).headers.get('x-ratelimit-limit')).toBe('600');
  });

  it('keeps the counter in DynamoDB, where every Lambda instance sees it', async () => {
    const p = await newPartner();
    const r = await api('GET', '/me', { key: p.test_key });
    const windowStart = Number(r.headers.get('x-ratelimit-reset')) - 60;
    const { ddb, accessTable } = testDb();
    const item = await ddb.send(new GetCommand({ TableName: accessTable, Key: platformKeys.rateCounter(p.test_key_id, windowStart), ConsistentRead: true }));
    expect(item.Item?.count).toBe(600 - Number(r.headers.get('x-ratelimit-remaining')));
    expect(item.Item?.ttl).toBeGreaterThan(windowStart);
  });

  it('carries the headers on 403 and 409 answers too', async () => {
    const p = await newPartner();
    const viewer = await memberWithRole('VIEWER', p);
    const forbidden = await write('POST', '/api-keys', viewer.testKey, { member_id: viewer.memberId });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('x-ratelimit-limit')).toBe('600');
    const idem = crypto.randomUUID();
    await write('POST', '/api-keys', p.test_key, { member_id: p.member_id }, { idempotencyKey: idem });
    const conflict = await write('POST', '/api-keys', p.test_key, { member_id: viewer.memberId }, { idempotencyKey: idem });
    expect(conflict.status).toBe(409);
    expect(conflict.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  });

  it('counts across concurrent requests without losing updates (shared atomic counter)', async () => {
    const p = await newPartner();
    await admin(['partner:set-rate-limit', '--partner', p.partner_id, '--per-minute', '1000', '--json']);
    const secs = new Date().getUTCSeconds();
    if (secs > 50) await new Promise((r) => setTimeout(r, (61 - secs) * 1000));
    const rs = await Promise.all(Array.from({ length: 30 }, () => api('GET', '/me', { key: p.test_key })));
    const remaining = rs.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 30 }, (_, i) => 970 + i));
  });
});

describe('errors', () => {
  it('a malformed escape in the path is a 400, and the stack stays up', async () => {
    const p = await newPartner();
    const r = await api('DELETE', '/api-keys/%E0%A4%A', { key: p.test_key, headers: { 'idempotency-key': crypto.randomUUID() } });
    expect(r.status).toBe(400);
    expect(r.body.details.errors[0]).toMatchObject({ field: 'key_id', location: 'path' });
    expect((await api('GET', '/health')).status).toBe(200);
  });

  it('malformed JSON -> 400 request.body.malformed_json, without echoing the body', async () => {
    const p = await newPartner();
    const r = await api('POST', '/api-keys', {
      key: p.test_key,
      rawBody: '{"member_id": ',
      headers: { 'idempotency-key': crypto.randomUUID(), 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('request.body.malformed_json');
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
    const secret = await api('POST', '/api-keys', { key: p.test_key, rawBody: 'tok_secret_abcdef', headers: { 'idempotency-key': crypto.randomUUID() } });
    expect(secret.status).toBe(400);
    expect(secret.text).not.toContain('tok_secret');
  });

  it('validation failures name the field and what was expected', async () => {
    const p = await newPartner();
    const bad = await write('PATCH', `/team/members/${p.member_id}/role`, p.live_key, { role: 'KING' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation.field.invalid');
    expect(bad.body.details.errors[0]).toMatchObject({
      field: 'role',
      location: 'body',
      expected: 'one of PARTNER_ADMIN, FINANCE, DEVELOPER, VIEWER',
      allowed: ['PARTNER_ADMIN', 'FINANCE', 'DEVELOPER', 'VIEWER'],
    });

    const missing = await write('POST', '/api-keys', p.test_key, {});
    expect(missing.body.code).toBe('validation.required.field');
    expect(missing.body.details.errors[0]).toMatchObject({ field: 'member_id', location: 'body' });

    const unknown = await write('POST', '/api-keys', p.test_key, { member_id: p.member_id, admin: true });
    expect(unknown.body.code).toBe('validation.field.invalid');

    const path = await write('PATCH', '/team/members/not-a-uuid/role', p.live_key, { role: 'VIEWER' });
    expect(path.body.details.errors[0]).toMatchObject({ field: 'user_id', location: 'path' });
  });

  it("a body over the service's 256 KB is its own 413 request.body.too_large (API Gateway's quotas: gateway-quotas.test.ts)", async () => {
    const p = await newPartner();
    const big = JSON.stringify({ member_id: p.member_id, pad: 'x'.repeat(300 * 1024) });
    const r = await api('POST', '/api-keys', { key: p.test_key, rawBody: big, headers: { 'idempotency-key': crypto.randomUUID() } });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('request.body.too_large');
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
  });
});
