import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors';
import type { WebhookEvent } from './generated/events';

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name.toLowerCase());
  const v = key === undefined ? undefined : bag[key];
  return Array.isArray(v) ? v[0] : v;
}

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, in seconds. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /**
   * Refuse a delivery without the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
   * `webhook-signature`). Default true: every delivery carries them, and without the timestamp a
   * captured request could be replayed. Set false only to check a bare `X-Service-Signature`.
   */
  requireTimestamp?: boolean;
  /** The time to check the timestamp against. Default: now. */
  now?: Date | number;
}

const hmac = (key: string | Buffer, ...parts: (string | Buffer)[]) => {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest();
};
const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/**
 * Verifies a webhook delivery and returns its typed event. Everything is checked over the raw body
 * bytes exactly as received, before any JSON parsing, in constant time:
 * - `X-Service-Signature`, hex HMAC-SHA256 keyed with the endpoint's whole `whsec_...` secret (while a
 *   rotation is open it is keyed with the previous secret, and `X-Service-Signature-Next` with the new
 *   one: either secret verifies);
 * - the Standard Webhooks headers: `webhook-timestamp` within `toleranceSeconds` of now, and one
 *   `v1,` signature of `webhook-signature` matching `id.timestamp.body` keyed with the secret's
 *   base64 part;
 * - the event id and type headers must match the envelope.
 * Throws WebhookVerificationError otherwise. Deduplicate on `event.id`: delivery is at-least-once.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: HeaderBag, secret: string, options: VerifyWebhookOptions = {}): WebhookEvent {
  const bytes = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const given = ['x-service-signature', 'x-service-signature-next', 'x-service-signature-previous']
    .map((n) => header(headers, n))
    .filter((v) => v !== undefined);
  if (!given.some((g) => /^[0-9a-f]{64}$/.test(g))) throw new WebhookVerificationError('X-Service-Signature is missing or not 64 lowercase hex characters');
  const expected = hmac(secret, bytes);
  if (!given.some((g) => /^[0-9a-f]{64}$/.test(g) && sameBytes(Buffer.from(g, 'hex'), expected)))
    throw new WebhookVerificationError('X-Service-Signature does not match the body');

  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signature === undefined) {
    if (options.requireTimestamp ?? true) throw new WebhookVerificationError('the webhook-id, webhook-timestamp and webhook-signature headers are missing');
  } else {
    if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not Unix seconds');
    const now = Math.floor(Number(options.now ?? Date.now()) / 1000);
    if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300))
      throw new WebhookVerificationError('webhook-timestamp is outside the tolerance window: a late or replayed delivery');
    const want = hmac(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'), `${id}.${timestamp}.`, bytes);
    const matches = signature.split(' ').some((v) => {
      const [version, b64] = v.split(',');
      return version === 'v1' && b64 !== undefined && sameBytes(Buffer.from(b64, 'base64'), want);
    });
    if (!matches) throw new WebhookVerificationError('webhook-signature does not match the body');
  }

  let event: WebhookEvent;
  try {
    event = JSON.parse(bytes.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('the signed body is not JSON');
  }
  const eventId = header(headers, 'x-service-event-id');
  if (eventId !== undefined && eventId !== event.id) throw new WebhookVerificationError('X-Service-Event-Id differs from the event id');
  if (id !== undefined && id !== event.id) throw new WebhookVerificationError('webhook-id differs from the event id');
  const type = header(headers, 'x-service-event-type');
  if (type !== undefined && type !== event.type) throw new WebhookVerificationError('X-Service-Event-Type differs from the event type');
  return event;
}
