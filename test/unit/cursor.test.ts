import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../shared/platform/cursor';

const key = randomBytes(32);
const scope = { endpoint: 'listAuditEvents', partnerId: '6f5049b3-d093-4bc0-afed-ebaaece3f9ba', env: 'test' };

describe('cursors', () => {
  it('round-trip a keyset position within 256 characters', () => {
    const pos = `2026-11-21T08:50:00.239Z#9aa465fd-b99b-4a6b-add2-6d3e99150eb6`;
    const c = encodeCursor(key, scope, pos);
    expect(c.length).toBeLessThanOrEqual(256);
    expect(decodeCursor(key, scope, c)).toEqual({ ok: true, position: pos });
  });

  it('tell a cursor from another endpoint from a forged one', () => {
    const c = encodeCursor(key, { ...scope, endpoint: 'listApiKeys' }, 'x');
    expect(decodeCursor(key, scope, c)).toEqual({ ok: false, reason: 'wrong_endpoint' });
    expect(decodeCursor(key, { ...scope, partnerId: 'other' }, c)).toEqual({ ok: false, reason: 'forged' });
    expect(decodeCursor(key, { ...scope, env: 'live' }, c)).toEqual({ ok: false, reason: 'forged' });
    expect(decodeCursor(randomBytes(32), scope, c)).toEqual({ ok: false, reason: 'forged' });
  });

  it('refuse tampering and garbage', () => {
    const c = encodeCursor(key, scope, 10);
    const [payload, sig] = c.split('.') as [string, string];
    const other = Buffer.from(JSON.stringify({ e: scope.endpoint, k: 20 })).toString('base64url');
    expect(decodeCursor(key, scope, `${other}.${sig}`)).toEqual({ ok: false, reason: 'forged' });
    expect(decodeCursor(key, scope, `${payload}`)).toEqual({ ok: false, reason: 'malformed' });
    expect(decodeCursor(key, scope, 'x'.repeat(300))).toEqual({ ok: false, reason: 'too_long' });
  });
});
