import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, memberWithRole, newPartner, write } from './helpers';

type Key = { id: string; key_id: string; name: string | null; status: string };
const listed = async (key: string) => (await api('GET', '/api-keys', { key })).body.data as Key[];

describe('PATCH /api-keys/{key_id}: renaming a key', () => {
  it('renames the demo key (issued with the partner, no name) in the key and its list row; the key keeps working; audited', async () => {
    const p = await newPartner();
    const renamed = await write('PATCH', `/api-keys/${p.test_key_id}`, p.test_key, { name: '  payments-sandbox  ' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ key_id: p.test_key_id, id: p.test_key_id, name: 'payments-sandbox', status: 'ACTIVE', environment: 'test' });
    // The list (its rows, strongly consistent) shows the new name at once.
    expect((await listed(p.test_key)).find((k) => k.id === p.test_key_id)?.name).toBe('payments-sandbox');
    // The key itself is unchanged: it still authenticates.
    expect((await api('GET', '/me', { key: p.test_key })).status).toBe(200);
    // A live key is renamed with a signed live write, and again (a second rename replaces the first).
    expect((await write('PATCH', `/api-keys/${p.live_key_id}`, p.live_key, { name: 'core-banking' })).status).toBe(200);
    expect((await write('PATCH', `/api-keys/${p.live_key_id}`, p.live_key, { name: 'core-banking-eu1' })).body.name).toBe('core-banking-eu1');
    expect((await listed(p.live_key)).find((k) => k.id === p.live_key_id)?.name).toBe('core-banking-eu1');
    // The audit line of the change, like every key change.
    const audit = (await api('GET', '/audit-events', { key: p.test_key })).body.data as { method: string; path: string; request_id: string; status: number }[];
    expect(audit.find((e) => e.request_id === renamed.headers.get('x-request-id'))).toMatchObject({
      method: 'PATCH',
      path: `/v1/api-keys/${p.test_key_id}`,
      status: 200,
    });
  });

  it('a revoked key can be renamed and stays revoked', async () => {
    const p = await newPartner();
    const created = (await write('POST', '/api-keys', p.test_key, { member_id: p.member_id, name: 'old-system' })).body as Key;
    expect((await write('DELETE', `/api-keys/${created.id}`, p.test_key)).status).toBe(200);
    const renamed = await write('PATCH', `/api-keys/${created.id}`, p.test_key, { name: 'old-system (retired)' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'old-system (retired)', status: 'REVOKED' });
    expect((await listed(p.test_key)).find((k) => k.id === created.id)).toMatchObject({ name: 'old-system (retired)', status: 'REVOKED' });
  });

  it('an idempotent retry answers the first result and renames once', async () => {
    const p = await newPartner();
    const idempotencyKey = randomUUID();
    const first = await write('PATCH', `/api-keys/${p.test_key_id}`, p.test_key, { name: 'first' }, { idempotencyKey });
    expect(first.status).toBe(200);
    // Renamed since by another request: the retry replays the first answer and changes nothing.
    expect((await write('PATCH', `/api-keys/${p.test_key_id}`, p.test_key, { name: 'second' })).status).toBe(200);
    const retry = await write('PATCH', `/api-keys/${p.test_key_id}`, p.test_key, { name: 'first' }, { idempotencyKey });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.name).toBe('first');
    expect((await listed(p.test_key)).find((k) => k.id === p.test_key_id)?.name).toBe('second');
    // The same key with another body is refused.
    expect((await write('PATCH', `/api-keys/${p.test_key_id}`, p.test_key, { name: 'third' }, { idempotencyKey })).status).toBe(409);
  });

  it('bad names answer 400 in the error shape, naming the field; nothing changes', async () => {
    const p = await newPartner();
    for (const body of [
      {},
      { name: '' },
      { name: '   ' },
      { name: 'x'.repeat(65) },
      { name: 'two\nlines' },
      { name: 'evil\u202Eexe' },
      { name: 42 },
      { name: 'ok', extra: 1 },
    ]) {
      const r = await write('PATCH', `/api-keys/${p.test_key_id}`, p.test_key, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toMatch(/^validation\./);
      expect(typeof r.body.request_id).toBe('string');
    }
    expect((await listed(p.test_key)).find((k) => k.id === p.test_key_id)?.name).toBeNull();
  });

  it("other partners' keys and the other environment's answer 404; roles without keys:manage 403", async () => {
    const [a, b] = await Promise.all([newPartner(), newPartner()]);
    const cross = await write('PATCH', `/api-keys/${a.test_key_id}`, b.test_key, { name: 'mine now' });
    expect(cross.status).toBe(404);
    expect(cross.body.code).toBe('resource.not_found');
    expect((await write('PATCH', `/api-keys/${a.test_key_id}`, a.live_key, { name: 'wrong env' })).status).toBe(404);
    expect((await write('PATCH', '/api-keys/zzzzzzzzzzzz', a.test_key, { name: 'nobody' })).status).toBe(404);
    for (const role of ['DEVELOPER', 'FINANCE', 'VIEWER']) {
      const m = await memberWithRole(role, a);
      const r = await write('PATCH', `/api-keys/${a.test_key_id}`, m.testKey, { name: `by ${role}` });
      expect(r.status, role).toBe(403);
      expect(r.body.code).toBe('auth.scope.insufficient');
    }
    expect((await listed(a.test_key)).find((k) => k.id === a.test_key_id)?.name).toBeNull();
  });
});
