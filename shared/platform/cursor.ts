import { createHmac, timingSafeEqual } from 'node:crypto';

export const MAX_CURSOR_LENGTH = 256;

export interface CursorScope {
  /** The list endpoint (route id) that issued the cursor. */
  endpoint: string;
  partnerId: string;
  env: string;
}

export type CursorResult<T> = { ok: true; position: T } | { ok: false; reason: 'too_long' | 'malformed' | 'forged' | 'wrong_endpoint' };

const b64 = (b: Buffer) => b.toString('base64url');

function mac(key: Buffer, scope: CursorScope, payload: string): Buffer {
  // The partner and environment are bound through the MAC without being carried in the cursor.
  return createHmac('sha256', key).update(`${scope.partnerId}\n${scope.env}\n${payload}`).digest().subarray(0, 16);
}

/**
 * Opaque, tamper-proof cursors: base64url(JSON {e: endpoint, k: position})
 * "." base64url(truncated HMAC over partner, environment and payload).
 */
export function encodeCursor(key: Buffer, scope: CursorScope, position: unknown): string {
  const payload = b64(Buffer.from(JSON.stringify({ e: scope.endpoint, k: position })));
  const cursor = `${payload}.${b64(mac(key, scope, payload))}`;
  if (cursor.length > MAX_CURSOR_LENGTH) throw new Error(`cursor for ${scope.endpoint} exceeds ${MAX_CURSOR_LENGTH} characters`);
  return cursor;
}

export function decodeCursor<T>(key: Buffer, scope: CursorScope, cursor: string): CursorResult<T> {
  if (cursor.length > MAX_CURSOR_LENGTH) return { ok: false, reason: 'too_long' };
  const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/.exec(cursor);
  if (!m) return { ok: false, reason: 'malformed' };
  const [, payload, sig] = m as unknown as [string, string, string];
  const expected = mac(key, scope, payload);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'forged' };
  let decoded: { e?: unknown; k?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { e?: unknown; k?: unknown };
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (decoded.e !== scope.endpoint) return { ok: false, reason: 'wrong_endpoint' };
  return { ok: true, position: decoded.k as T };
}
