import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Env } from '../kernel/tenant';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomString(alphabet: string, length: number): string {
  // Rejection sampling keeps every character uniform.
  const out: string[] = [];
  const limit = 256 - (256 % alphabet.length);
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < limit && out.length < length) out.push(alphabet[b % alphabet.length]!);
    }
  }
  return out.join('');
}

/** The public part: the key id, shown in listings and logs. */
export const newKeyPrefix = () => randomString(LOWER, 12);
/** 32 base62 characters, about 190 bits. */
export const newKeySecret = () => randomString(ALNUM, 32);

export function formatKey(env: Env, prefix: string, secret: string): string {
  return `sk_${env}_${prefix}_${secret}`;
}

const KEY_RE = /^sk_(live|test)_([a-z0-9]{12})_([A-Za-z0-9]{32})$/;

export interface ParsedKey {
  env: Env;
  prefix: string;
  secret: string;
}

export function parseKey(key: string): ParsedKey | undefined {
  const m = KEY_RE.exec(key);
  return m ? { env: m[1] as Env, prefix: m[2]!, secret: m[3]! } : undefined;
}

/**
 * Keys are stored only as SHA-256 of the secret: it has ~190 bits of entropy,
 * so a slow password hash would add latency to every request and no safety.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
