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

/**
 * Verifies a webhook delivery and returns its typed event. The signature
 * (`X-Service-Signature`, hex HMAC-SHA256 keyed with the endpoint's whole
 * `whsec_...` signing secret) is checked over the raw body bytes exactly as
 * received, before any JSON parsing, in constant time; the event id and type
 * headers must match the envelope. Throws WebhookVerificationError otherwise.
 * Deduplicate on `event.id`: delivery is at-least-once.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: HeaderBag, secret: string): WebhookEvent {
  const given = header(headers, 'x-service-signature') ?? '';
  if (!/^[0-9a-f]{64}$/.test(given)) throw new WebhookVerificationError('X-Service-Signature is missing or not 64 lowercase hex characters');
  const bytes = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const expected = createHmac('sha256', secret).update(bytes).digest();
  if (!timingSafeEqual(Buffer.from(given, 'hex'), expected)) throw new WebhookVerificationError('X-Service-Signature does not match the body');
  let event: WebhookEvent;
  try {
    event = JSON.parse(bytes.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('the signed body is not JSON');
  }
  const id = header(headers, 'x-service-event-id');
  if (id !== undefined && id !== event.id) throw new WebhookVerificationError('X-Service-Event-Id differs from the event id');
  const type = header(headers, 'x-service-event-type');
  if (type !== undefined && type !== event.type) throw new WebhookVerificationError('X-Service-Event-Type differs from the event type');
  return event;
}
