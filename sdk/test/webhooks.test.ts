import { createHmac } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK } from 'jose';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signPaymentConfirmation, verifyWebhook, WebhookVerificationError } from '../src/index';

/** The README's worked example (Verifying a delivery). */
const SECRET = 'whsec_example_secret';
const BODY =
  '{"id":"9f1c2d3e-0000-4000-8000-000000000001","type":"booking.confirmed","created_at":"2026-11-21T10:00:00.000Z","test":true,"data":{"booking_number":"PTB-7K3M-Q9XD","partner_reference":"BANK-001","status":"CONFIRMED","travel_date":"2026-12-01"}}';
const SIGNATURE = 'ca1056a4d82c79af800e1f48fdc10d96b1b01ee33c17e56d115b2a80e92d86c7';
const headers = { 'X-Service-Signature': SIGNATURE, 'X-Service-Event-Id': '9f1c2d3e-0000-4000-8000-000000000001', 'X-Service-Event-Type': 'booking.confirmed' };

/** The worked example predates the Standard Webhooks headers: checked with the spec's header alone. */
const legacy = { requireTimestamp: false };

describe('verifyWebhook', () => {
  it("accepts the README's worked example, from a string, bytes or Headers, and returns the typed event", () => {
    const event = verifyWebhook(BODY, headers, SECRET, legacy);
    expect(event.type).toBe('booking.confirmed');
    if (event.type === 'booking.confirmed') expect(event.data.booking_number).toBe('PTB-7K3M-Q9XD');
    expect(verifyWebhook(new TextEncoder().encode(BODY), new Headers(headers), SECRET, legacy).id).toBe(event.id);
  });

  it('refuses a tampered body, even one that parses to the same JSON', () => {
    expect(() => verifyWebhook(BODY.replace('BANK-001', 'BANK-002'), headers, SECRET, legacy)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(BODY.replace('{"id"', '{ "id"'), headers, SECRET, legacy)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(`${BODY}\n`, headers, SECRET, legacy)).toThrow(WebhookVerificationError);
  });

  it('refuses tampered, missing or mismatched headers and a wrong secret', () => {
    const flip = `${SIGNATURE.slice(0, -1)}${SIGNATURE.endsWith('7') ? '8' : '7'}`;
    expect(() => verifyWebhook(BODY, { ...headers, 'X-Service-Signature': flip }, SECRET, legacy)).toThrow(/does not match/);
    expect(() => verifyWebhook(BODY, { ...headers, 'X-Service-Signature': SIGNATURE.toUpperCase() }, SECRET, legacy)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(BODY, { ...headers, 'X-Service-Signature': SIGNATURE.slice(2) }, SECRET, legacy)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(BODY, { 'X-Service-Event-Id': headers['X-Service-Event-Id'] }, SECRET, legacy)).toThrow(/missing/);
    expect(() => verifyWebhook(BODY, headers, 'whsec_other', legacy)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(BODY, { ...headers, 'X-Service-Event-Id': '9f1c2d3e-0000-4000-8000-000000000002' }, SECRET, legacy)).toThrow(/Event-Id/);
    expect(() => verifyWebhook(BODY, { ...headers, 'X-Service-Event-Type': 'booking.cancelled' }, SECRET, legacy)).toThrow(/Event-Type/);
  });

  it('checks the signature before parsing anything', () => {
    const junk = 'not json';
    const sig = createHmac('sha256', SECRET).update(junk).digest('hex');
    expect(() => verifyWebhook(junk, { 'x-service-signature': sig }, SECRET, legacy)).toThrow(/not JSON/);
    expect(() => verifyWebhook(junk, { 'x-service-signature': SIGNATURE }, SECRET, legacy)).toThrow(/does not match/);
  });
});

describe('verifyWebhook with the Standard Webhooks headers', () => {
  // A secret in the whsec_ base64 convention, signed by the official package as an outside sender would.
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const id = '9f1c2d3e-0000-4000-8000-000000000001';
  const at = new Date('2026-11-24T10:00:00Z');
  const signed = (body = BODY, when = at, key = secret) => ({
    'x-service-signature': createHmac('sha256', key).update(body).digest('hex'),
    'x-service-event-id': id,
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(when.getTime() / 1000)),
    'webhook-signature': new StandardWebhook(key).sign(id, when, body),
  });

  it('accepts a delivery signed by the standardwebhooks package, within 5 minutes either way', () => {
    expect(verifyWebhook(BODY, signed(), secret, { now: at }).id).toBe(id);
    expect(verifyWebhook(BODY, signed(), secret, { now: at.getTime() + 299_000 }).id).toBe(id);
    expect(verifyWebhook(BODY, signed(), secret, { now: at.getTime() - 299_000 }).id).toBe(id);
  });

  it('refuses an old or future timestamp, a timestamp changed after signing, and a missing header', () => {
    expect(() => verifyWebhook(BODY, signed(), secret, { now: at.getTime() + 301_000 })).toThrow(/tolerance/);
    expect(() => verifyWebhook(BODY, signed(), secret, { now: at.getTime() - 301_000 })).toThrow(/tolerance/);
    expect(verifyWebhook(BODY, signed(), secret, { now: at.getTime() + 3_600_000, toleranceSeconds: 3_700 }).id).toBe(id);
    const moved = { ...signed(), 'webhook-timestamp': String(Math.floor(at.getTime() / 1000) + 1) };
    expect(() => verifyWebhook(BODY, moved, secret, { now: at })).toThrow(/webhook-signature/);
    const { 'webhook-timestamp': _, ...bare } = signed();
    expect(() => verifyWebhook(BODY, bare, secret, { now: at })).toThrow(/missing/);
  });

  it('accepts any one of several space-separated signatures (a rotation), and refuses when none matches', () => {
    const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const both = { ...signed(), 'webhook-signature': `${new StandardWebhook(other).sign(id, at, BODY)} ${signed()['webhook-signature']}` };
    expect(verifyWebhook(BODY, both, secret, { now: at }).id).toBe(id);
    const onlyOther = { ...signed(), 'webhook-signature': new StandardWebhook(other).sign(id, at, BODY) };
    expect(() => verifyWebhook(BODY, onlyOther, secret, { now: at })).toThrow(/webhook-signature/);
    expect(() => verifyWebhook(BODY, { ...signed(), 'webhook-id': 'another' }, secret, { now: at })).toThrow(WebhookVerificationError);
  });

  it('accepts X-Service-Signature-Next (new secret) and X-Service-Signature-Previous (previous secret) during a rotation', () => {
    const previous = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    const h = signed();
    const sign = (s: string) => createHmac('sha256', s).update(BODY).digest('hex');
    const withNext = { ...h, 'x-service-signature': sign(previous), 'x-service-signature-next': h['x-service-signature'] };
    expect(verifyWebhook(BODY, withNext, secret, { now: at }).id).toBe(id);
    const rotated = {
      ...h,
      'x-service-signature': sign(`whsec_${Buffer.alloc(32, 4).toString('base64')}`),
      'x-service-signature-previous': sign(previous),
      'webhook-signature': `${h['webhook-signature']} ${new StandardWebhook(previous).sign(id, at, BODY)}`,
    };
    expect(verifyWebhook(BODY, rotated, previous, { now: at }).id).toBe(id);
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
