import { describe, expect, it } from 'vitest';
import { admin, api, memberWithRole, write } from './helpers';

/**
 * The revocation bound (docs/guides/authentication.md): a revoked key, a disabled
 * member or partner and a changed role apply from the next request that
 * starts after the change committed. Each test first warms the key (the
 * running handlers then know its owners and take the one-stage path), makes
 * the change, and checks the very next request: any cache of key, member or
 * partner state, however short, fails these tests.
 */
const keyIdOf = (key: string) => key.split('_')[2]!;
const warm = async (key: string) => {
  for (let i = 0; i < 3; i++) expect((await api('GET', '/me', { key })).status).toBe(200);
};

describe('revocation bound: changes apply from the next request', () => {
  it('a revoked key is refused on the next request', async () => {
    const dev = await memberWithRole('DEVELOPER');
    await warm(dev.testKey);
    const revoked = await write('DELETE', `/api-keys/${keyIdOf(dev.testKey)}`, dev.partner.test_key);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect((await api('GET', '/me', { key: dev.testKey })).body.code).toBe('auth.api_key.invalid');
  });

  it('a changed role applies to the next request, both ways', async () => {
    const dev = await memberWithRole('DEVELOPER');
    await warm(dev.liveKey);
    expect((await api('GET', '/webhooks', { key: dev.liveKey })).status).toBe(200);
    const path = `/team/members/${dev.memberId}/role`;
    expect((await write('PATCH', path, dev.partner.live_key, { role: 'FINANCE' })).status).toBe(200);
    expect((await api('GET', '/me', { key: dev.liveKey })).body.member.role).toBe('FINANCE');
    expect((await api('GET', '/webhooks', { key: dev.liveKey })).body.code).toBe('auth.scope.insufficient');
    expect((await write('PATCH', path, dev.partner.live_key, { role: 'DEVELOPER' })).status).toBe(200);
    expect((await api('GET', '/webhooks', { key: dev.liveKey })).status).toBe(200);
  });

  it('a disabled member and a disabled partner are refused on the next request, and work again once enabled', async () => {
    const dev = await memberWithRole('DEVELOPER');
    await warm(dev.testKey);
    await warm(dev.partner.test_key);
    expect((await admin(['member:disable', '--partner', dev.partner.partner_id, '--member', dev.memberId, '--json'])).code).toBe(0);
    expect((await api('GET', '/me', { key: dev.testKey })).body.code).toBe('auth.api_key.invalid');
    expect((await admin(['member:enable', '--partner', dev.partner.partner_id, '--member', dev.memberId, '--json'])).code).toBe(0);
    expect((await api('GET', '/me', { key: dev.testKey })).status).toBe(200);

    expect((await admin(['partner:disable', '--partner', dev.partner.partner_id, '--json'])).code).toBe(0);
    expect((await api('GET', '/me', { key: dev.partner.test_key })).body.code).toBe('auth.api_key.invalid');
    expect((await api('GET', '/me', { key: dev.testKey })).body.code).toBe('auth.api_key.invalid');
    expect((await admin(['partner:enable', '--partner', dev.partner.partner_id, '--json'])).code).toBe(0);
    expect((await api('GET', '/me', { key: dev.partner.test_key })).status).toBe(200);
  });

  it('a wrong secret for a known key id is refused and never counts against the key', async () => {
    const dev = await memberWithRole('DEVELOPER');
    await warm(dev.testKey);
    const before = Number((await api('GET', '/me', { key: dev.testKey })).headers.get('x-ratelimit-remaining'));
    const secret = dev.testKey.split('_')[3]!;
    const wrong = dev.testKey.replace(secret, `${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}`);
    for (let i = 0; i < 3; i++) expect((await api('GET', '/me', { key: wrong })).body.code).toBe('auth.api_key.invalid');
    const after = Number((await api('GET', '/me', { key: dev.testKey })).headers.get('x-ratelimit-remaining'));
    // One request of its own between the reads (the window may also have rolled over: then more remain).
    expect(after === before - 1 || after > before).toBe(true);
  });
});
