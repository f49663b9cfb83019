import { createHmac } from 'node:crypto';

/** The secret of an API key: the part after the last `_` (`sk_live_<key id>_<secret>`). */
export const keySecret = (apiKey: string): string => apiKey.slice(apiKey.lastIndexOf('_') + 1);

export const isLiveKey = (apiKey: string): boolean => apiKey.startsWith('sk_live_');

/**
 * X-Signature of a live write: hex HMAC-SHA256, keyed with the key's secret, over
 * `timestamp LF METHOD LF path-with-query LF body`, the body being the exact bytes sent.
 */
export function signRequest(secret: string, timestamp: string, method: string, pathWithQuery: string, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(`${timestamp}\n${method.toUpperCase()}\n${pathWithQuery}\n`).update(body).digest('hex');
}
