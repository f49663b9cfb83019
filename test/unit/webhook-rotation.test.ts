import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../sdk/src/webhooks';
import { signatureHeaders } from '../../shared/webhooks/sender';

/** A receiver that follows only the spec: X-Service-Signature is hex HMAC-SHA256 of the raw body with its one secret. */
function specReceiverAccepts(secret: string, body: string, headers: Record<string, string>): boolean {
  const expected = createHmac('sha256', secret).update(body, 'utf8').digest();
  const given = Buffer.from(headers['x-service-signature'] ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const previous = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const next = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
const eventId = '01936b2c-7d4e-7f6a-9b8c-2e5d1a0f9c47';
const body = JSON.stringify({ id: eventId, type: 'booking.confirmed', created_at: '2026-12-01T09:00:00.000Z', test: false, data: {} });

describe('webhook signatures during a secret rotation (issue 41, 4)', () => {
  it('a receiver that follows only the spec and still holds the previous secret keeps verifying during the overlap', () => {
    const headers = signatureHeaders({ secret: next, previousSecret: previous, body, eventId });
    expect(specReceiverAccepts(previous, body, headers)).toBe(true);
    // The new secret's signature travels beside it, and the SDK accepts either secret.
    expect(headers['x-service-signature-next']).toBe(createHmac('sha256', next).update(body).digest('hex'));
    for (const secret of [previous, next]) expect(verifyWebhook(body, headers, secret).id).toBe(eventId);
  });

  it('after the overlap (no previous secret) the header is keyed with the current secret only', () => {
    const headers = signatureHeaders({ secret: next, body, eventId });
    expect(specReceiverAccepts(next, body, headers)).toBe(true);
    expect(specReceiverAccepts(previous, body, headers)).toBe(false);
    expect(headers['x-service-signature-next']).toBeUndefined();
    expect(headers['x-service-signature-previous']).toBeUndefined();
  });
});
