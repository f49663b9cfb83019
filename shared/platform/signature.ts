import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_WINDOW_SECONDS = 300;

/**
 * What a live write signs: timestamp, METHOD, path with its query string,
 * and the exact raw body bytes, joined by LF.
 */
export function signingString(timestamp: string, method: string, pathWithQuery: string, body: string): string {
  return `${timestamp}\n${method.toUpperCase()}\n${pathWithQuery}\n${body}`;
}

/** hex(HMAC-SHA256(secret, signing string)): what a partner computes. The body is taken as the bytes sent. */
export function sign(secret: string, timestamp: string, method: string, pathWithQuery: string, body: string | Uint8Array): string {
  return createHmac('sha256', secret)
    .update(signingString(timestamp, method, pathWithQuery, ''), 'utf8')
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest('hex');
}

export type TimestampCheck = { ok: true } | { ok: false; missing?: true; reason: string };

export function checkTimestamp(header: string | undefined, nowSeconds: number): TimestampCheck {
  if (header === undefined || header === '') return { ok: false, missing: true, reason: 'X-Timestamp is required on live writes (Unix time in seconds).' };
  if (!/^\d{1,12}$/.test(header)) return { ok: false, reason: 'X-Timestamp must be an integer Unix time in seconds.' };
  const skew = Math.abs(nowSeconds - Number(header));
  if (skew > SIGNATURE_WINDOW_SECONDS) {
    return { ok: false, reason: `X-Timestamp is ${skew} s away from server time; the window is ${SIGNATURE_WINDOW_SECONDS} s.` };
  }
  return { ok: true };
}

/** Constant-time comparison of the expected signature with the X-Signature header. */
export function signatureMatches(expectedHex: string, header: string | undefined): boolean {
  if (!header || !/^[0-9a-f]{64}$/.test(header)) return false;
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(header, 'hex'));
}
