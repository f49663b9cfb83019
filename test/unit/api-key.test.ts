import { describe, expect, it } from 'vitest';
import { formatKey, hashSecret, newKeyPrefix, newKeySecret, parseKey, secretMatches } from '../../shared/access/api-key';

describe('API keys', () => {
  it('round-trips the documented format', () => {
    const prefix = newKeyPrefix();
    const secret = newKeySecret();
    const key = formatKey('test', prefix, secret);
    expect(key).toMatch(/^sk_test_[a-z0-9]{12}_[A-Za-z0-9]{32}$/);
    expect(parseKey(key)).toEqual({ env: 'test', prefix, secret });
  });

  it('rejects malformed keys', () => {
    for (const bad of [
      '',
      `sk_prod_abcdefghijkl_${'a'.repeat(32)}`,
      'sk_live_ABC_def',
      `sk_live_abcdefghijkl_${'a'.repeat(31)}`,
      `Bearer sk_live_abcdefghijkl_${'a'.repeat(32)}`,
    ]) {
      expect(parseKey(bad)).toBeUndefined();
    }
  });

  it('stores a hash that matches only the right secret', () => {
    const secret = newKeySecret();
    const stored = hashSecret(secret);
    expect(stored).not.toContain(secret);
    expect(secretMatches(secret, stored)).toBe(true);
    expect(secretMatches(newKeySecret(), stored)).toBe(false);
    expect(secretMatches(secret, 'abcd')).toBe(false);
  });

  it('generates distinct secrets', () => {
    const set = new Set(Array.from({ length: 200 }, newKeySecret));
    expect(set.size).toBe(200);
  });
});
