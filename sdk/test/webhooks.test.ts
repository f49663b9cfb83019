import { createHmac } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { signPaymentConfirmation, verifyWebhook, WebhookVerificationError } from '../src/index';

/** The README's worked example (Verifying a delivery). */
const SECRET = 'whsec_example_secret';
const BODY =
  '{"id":"9f1c2d3e-0000-4000-8000-000000000001","type":"booking.confirmed","created_at":"2026-11-21T10:00:00.000Z","test":true,"data":{"booking_number":"PTB-7K3M-Q9XD","partner_reference":"BANK-001","status":"CONFIRMED","travel_date":"2026-12-01"}}';
const SIGNATURE = 'ca1056a4d82c79af800e1f48fdc10d96b1b01ee33c17e56d115b2a80e92d86c7';
const headers = { 'X-Service-Signature': SIGNATURE, 'X-Service-Event-Id': '9f1c2d3e-0000-4000-8000-000000000001', 'X-Service-Event-Type': 'booking.confirmed' };

describe('verifyWebhook', () => {
  it("accepts the README's worked example, from a string, bytes or Headers, and returns the typed event", () => {
    const event = verifyWebhook(BODY, headers, SECRET);
    expect(event.type).toBe('booking.confirmed');
    if (event.type === 'booking.confirmed') expect(event.data.booking_number).toBe('PTB-7K3M-Q9XD');
    expect(verifyWebhook(new TextEncoder().encode(BODY), new Headers(headers), SECRET).id).toBe(event.id);
  });

  it('refuses a tampered body, even one that parses to the same JSON', () => {
    expect(() => verifyWebhook(BODY.replace('BANK-001', 'BANK-002'), headers, SECRET)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(BODY.replace('{"id"', '{ "id"'), headers, SECRET)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(`${BODY}\n`, headers, SECRET)).toThrow(WebhookVerificationError);
  });

  it('refuses tampered, missing or mismatched headers and a wrong secret', () => {
    const flip = `${SIGNATURE.slice(0, -1)}${SIGNATURE.endsWith('7') ? '8' : '7'}`;
    expect(() => verifyWebhook(BODY, { ...headers, 'X-Service-Signature': flip }, SECRET)).toThrow(/does not match/);
    expect(() => verifyWebhook(BODY, { ...headers, 'X-Service-Signature': SIGNATURE.toUpperCase() }, SECRET)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(BODY, { ...headers, 'X-Service-Signature': SIGNATURE.slice(2) }, SECRET)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(BODY, { 'X-Service-Event-Id': headers['X-Service-Event-Id'] }, SECRET)).toThrow(/missing/);
    expect(() => verifyWebhook(BODY, headers, 'whsec_other')).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(BODY, { ...headers, 'X-Service-Event-Id': '9f1c2d3e-0000-4000-8000-000000000002' }, SECRET)).toThrow(/Event-Id/);
    expect(() => verifyWebhook(BODY, { ...headers, 'X-Service-Event-Type': 'booking.cancelled' }, SECRET)).toThrow(/Event-Type/);
  });

  it('checks the signature before parsing anything', () => {
    const junk = 'not json';
    const sig = createHmac('sha256', SECRET).update(junk).digest('hex');
    expect(() => verifyWebhook(junk, { 'x-service-signature': sig }, SECRET)).toThrow(/not JSON/);
    expect(() => verifyWebhook(junk, { 'x-service-signature': SIGNATURE }, SECRET)).toThrow(/does not match/);
  });
});

describe('signPaymentConfirmation', () => {
  it('produces a compact ES256 JWS with the kid, over the claims, that the public key verifies', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: 'bank-key-1' };
    const claims = {
      quote_id: '91b97712-e026-403c-927d-3719fa336bd7',
      amount: { amount: '400.00', currency: 'MAD' as const },
      payment_reference: 'PAY-1',
      paid_at: '2026-11-21T09:27:45Z',
    };
    const jws = await signPaymentConfirmation(jwk, claims);
    expect(jws.split('.')).toHaveLength(3);
    expect(decodeProtectedHeader(jws)).toEqual({ alg: 'ES256', kid: 'bank-key-1' });
    const { payload } = await compactVerify(jws, await importJWK(await exportJWK(publicKey), 'ES256'));
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(claims);
    await expect(signPaymentConfirmation({ ...jwk, kid: undefined }, claims)).rejects.toThrow(/kid/);
  });
});
