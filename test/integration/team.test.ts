import { describe, expect, it } from 'vitest';
import { admin, api, memberWithRole, newPartner, write } from './helpers';

describe('GET /team/members', () => {
  it('lists the members with is_you for the caller', async () => {
    const p = await newPartner();
    const viewer = await memberWithRole('VIEWER', p);
    const asViewer = await api('GET', '/team/members', { key: viewer.testKey });
    expect(asViewer.status).toBe(200);
    expect(asViewer.body.data).toHaveLength(2);
    const me = asViewer.body.data.find((m: { is_you: boolean }) => m.is_you);
    expect(me).toMatchObject({ id: viewer.memberId, role: 'VIEWER', enabled: true });
    expect(asViewer.body.data.find((m: { id: string }) => m.id === p.member_id)).toMatchObject({ role: 'PARTNER_ADMIN', is_you: false });
  });
});

describe('PATCH /team/members/{user_id}/role', () => {
  it('changes a role and returns the member', async () => {
    const p = await newPartner();
    const dev = await memberWithRole('DEVELOPER', p);
    const r = await write('PATCH', `/team/members/${dev.memberId}/role`, p.live_key, { role: 'FINANCE' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: dev.memberId, role: 'FINANCE', is_you: false });
    // The new role takes effect on the member's keys at once.
    expect((await api('GET', '/me', { key: dev.testKey })).body.member.role).toBe('FINANCE');
  });

  it('refuses a change of your own role with 403 team.role.self_change', async () => {
    const p = await newPartner();
    const r = await write('PATCH', `/team/members/${p.member_id}/role`, p.live_key, { role: 'VIEWER' });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('team.role.self_change');
  });

  it('unknown or foreign member -> 404; invalid role -> 400', async () => {
    const p = await newPartner();
    const q = await newPartner();
    expect((await write('PATCH', `/team/members/${crypto.randomUUID()}/role`, p.live_key, { role: 'VIEWER' })).body.code).toBe('resource.not_found');
    expect((await write('PATCH', `/team/members/${q.member_id}/role`, p.live_key, { role: 'VIEWER' })).status).toBe(404);
    expect((await write('PATCH', `/team/members/${q.member_id}/role`, p.live_key, { role: 'OWNER' })).status).toBe(400);
  });

  it('two admins demoting each other at the same moment: one wins, the other gets 409 team.role.last_admin', async () => {
    // Whether the loser races the winner's transaction (409) or arrives after it (403) is timing;
    // rounds continue until the race itself has been observed, checking the invariant every time.
    let conflicts = 0;
    for (let round = 0; round < 12 && conflicts === 0; round++) {
      const p = await newPartner();
      const b = await memberWithRole('PARTNER_ADMIN', p);
      const [ab, ba] = await Promise.all([
        write('PATCH', `/team/members/${b.memberId}/role`, p.live_key, { role: 'VIEWER' }),
        write('PATCH', `/team/members/${p.member_id}/role`, b.liveKey, { role: 'VIEWER' }),
      ]);
      const statuses = [ab.status, ba.status].sort();
      expect(statuses[0]).toBe(200);
      const loser = ab.status === 200 ? ba : ab;
      // Arriving after the winner committed, the loser is no longer an admin (403); racing it, 409.
      expect([403, 409]).toContain(loser.status);
      if (loser.status === 409) {
        expect(loser.body.code).toBe('team.role.last_admin');
        conflicts++;
      }
      const members = (await api('GET', '/team/members', { key: ab.status === 200 ? p.test_key : b.testKey })).body.data;
      expect(members.filter((m: { role: string }) => m.role === 'PARTNER_ADMIN')).toHaveLength(1);
    }
    expect(conflicts).toBeGreaterThan(0);
  });

  it('promoting and demoting keeps at least one admin (sequential)', async () => {
    const p = await newPartner();
    const b = await memberWithRole('VIEWER', p);
    expect((await write('PATCH', `/team/members/${b.memberId}/role`, p.live_key, { role: 'PARTNER_ADMIN' })).status).toBe(200);
    expect((await write('PATCH', `/team/members/${p.member_id}/role`, b.liveKey, { role: 'DEVELOPER' })).status).toBe(200);
    // p's admin is now a DEVELOPER and cannot manage the team any more.
    expect((await write('PATCH', `/team/members/${b.memberId}/role`, p.live_key, { role: 'VIEWER' })).body.code).toBe('auth.scope.insufficient');
    const disabled = await admin(['member:disable', '--partner', p.partner_id, '--member', b.memberId, '--json']);
    expect(disabled.code).toBe(1); // the last enabled admin cannot be disabled
  });
});
