import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { admin, api, baseUrl, newPartner, pastIndexLag, testDb, write } from './helpers';

describe('GET /v1/health', () => {
  it('answers ok without a key and carries a request id', async () => {
    const r = await api('GET', '/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('ignores a query string, as uptime monitors send to bust caches', async () => {
    const r = await api('GET', '/health?x=1&_=1764111111');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
  });
});

describe('router errors use the error shape', () => {
  it('unknown route -> 404 with request_id equal to the X-Request-Id header', async () => {
    const r = await api('GET', '/no-such-thing');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('request.route.not_found');
    expect(r.body.message).toMatch(/GET \/v1\/no-such-thing/);
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
  });

  it('a trailing slash: a read is redirected (308) to the route, query kept; a write is a 404 naming the route', async () => {
    const read = await fetch(`${baseUrl()}/docs/guides/?x=1`, { redirect: 'manual' });
    expect(read.status).toBe(308);
    expect(read.headers.get('location')).toBe('/v1/docs/guides?x=1');
    const p = await newPartner();
    const w = await write('POST', '/quotes/', p.test_key, {});
    expect(w.status).toBe(404);
    expect(w.body.message).toContain('the route is /v1/quotes, without the trailing slash');
  });

  it('wrong method on a public route -> 405 with Allow', async () => {
    const r = await api('DELETE', '/health');
    expect(r.status).toBe(405);
    expect(r.body.code).toBe('request.method.not_allowed');
    expect(r.headers.get('allow')).toBe('GET');
    expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
  });
});

describe('admin CLI', () => {
  it('partner:create prints one JSON document with the partner, its admin and two keys', async () => {
    const r = await admin(['partner:create', '--name', 'CLI Bank', '--email', 'ops@cli-bank.example', '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.json.partner_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.json.member_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.json.live_key).toMatch(/^sk_live_[a-z0-9]{12}_[A-Za-z0-9]{32}$/);
    expect(r.json.test_key).toMatch(/^sk_test_[a-z0-9]{12}_[A-Za-z0-9]{32}$/);

    await pastIndexLag(); // the list reads through an index
    const list = await admin(['partner:list', '--json']);
    expect(list.code).toBe(0);
    const mine = list.json.data.find((p: { partner_id: string }) => p.partner_id === r.json.partner_id);
    expect(mine).toMatchObject({ name: 'CLI Bank', email: 'ops@cli-bank.example' });
    expect(list.stdout).not.toContain(r.json.live_key.split('_')[3]);
  });

  it('member:add, key:issue and key:revoke return their JSON fields; one member holds both environments', async () => {
    const p = (await admin(['partner:create', '--name', 'Member Bank', '--json'])).json;
    const m = await admin([
      'member:add',
      '--partner',
      p.partner_id,
      '--email',
      'dev@member-bank.example',
      '--role',
      'DEVELOPER',
      '--first-name',
      'Dana',
      '--last-name',
      'Dev',
      '--json',
    ]);
    expect(m.code).toBe(0);
    expect(m.json.member_id).toMatch(/^[0-9a-f-]{36}$/);

    const live = await admin(['key:issue', '--partner', p.partner_id, '--member', m.json.member_id, '--env', 'live', '--json']);
    const test = await admin(['key:issue', '--partner', p.partner_id, '--member', m.json.member_id, '--env', 'test', '--json']);
    expect(live.json.key).toMatch(new RegExp(`^sk_live_${live.json.key_id}_`));
    expect(test.json.key).toMatch(new RegExp(`^sk_test_${test.json.key_id}_`));

    const revoked = await admin(['key:revoke', '--key-id', live.json.key_id, '--json']);
    expect(revoked.json).toMatchObject({ key_id: live.json.key_id, revoked: true });
  });

  it('stores keys only as hashes: no secret appears anywhere in the tables, even after an idempotent key creation', async () => {
    const p = await newPartner();
    const idem = crypto.randomUUID();
    const created = await write('POST', '/api-keys', p.test_key, { member_id: p.member_id }, { idempotencyKey: idem });
    expect(created.body.key).toMatch(/^sk_test_/);
    const replay = await write('POST', '/api-keys', p.test_key, { member_id: p.member_id }, { idempotencyKey: idem });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toMatchObject({ id: created.body.id, key: null });

    const { ddb, accessTable, dataTable } = testDb();
    const secrets = [p.live_key, p.test_key, created.body.key].map((k: string) => k.split('_')[3]!);
    for (const TableName of [accessTable, dataTable]) {
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await ddb.send(new ScanCommand({ TableName, ExclusiveStartKey }));
        const dump = JSON.stringify(page.Items ?? []);
        for (const s of secrets) expect(dump).not.toContain(s);
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
    }
  });

  it('errors go to stderr with a non-zero exit and nothing on stdout', async () => {
    const dup = await admin(['partner:create', '--name', 'Dup Bank', '--json']);
    await admin(['member:add', '--partner', dup.json.partner_id, '--email', 'a@dup.example', '--role', 'VIEWER', '--json']);
    const again = await admin(['member:add', '--partner', dup.json.partner_id, '--email', 'a@dup.example', '--role', 'VIEWER', '--json']);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/already a member/);

    const bad = await admin(['member:add', '--partner', dup.json.partner_id, '--email', 'b@dup.example', '--role', 'KING', '--json']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/PARTNER_ADMIN/);

    const foreign = await admin(['key:issue', '--partner', dup.json.partner_id, '--member', '00000000-0000-4000-8000-000000000000', '--env', 'test', '--json']);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/does not exist/);
  });
});
