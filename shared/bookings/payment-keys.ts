import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Env } from '../kernel/tenant';
import type { RegisteredKey } from './payment';
import { bookingStore } from './store';

export class PaymentKeyError extends Error {}

/**
 * Registers the public half of a bank's EC P-256 key for one partner and environment. Registering the
 * same key under the same kid again changes nothing (`created: false`), so a script may register
 * what it needs on every run; another key under a kid already taken is refused.
 */
export async function registerPaymentKey(partnerId: string, env: Env, jwk: JWK): Promise<{ kid: string; created: boolean }> {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y)
    throw new PaymentKeyError('the key must be an EC P-256 public JWK (kty EC, crv P-256, x, y) for ES256');
  if (jwk.d) throw new PaymentKeyError('this is a private key: register the public JWK only (drop "d")');
  try {
    await importJWK(jwk, 'ES256');
  } catch (e) {
    throw new PaymentKeyError(`the JWK does not import as an ES256 key: ${(e as Error).message}`);
  }
  const publicJwk: JWK = { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
  const kid = jwk.kid ?? (await calculateJwkThumbprint(publicJwk));
  if (await bookingStore.putPaymentKey(partnerId, env, kid, { ...publicJwk, kid, alg: 'ES256', use: 'sig' })) return { kid, created: true };
  const existing = await bookingStore.getPaymentKey(partnerId, env, kid);
  if (existing?.x === publicJwk.x && existing?.y === publicJwk.y) return { kid, created: false };
  throw new PaymentKeyError(`another payment key with kid '${kid}' is already registered for this partner and environment; use a new kid to rotate`);
}

/** Sandbox convenience: a fresh key pair; the public half is registered, the private JWK returned once. */
export async function generatePaymentKey(partnerId: string, env: Env = 'test'): Promise<{ kid: string; private_jwk: JWK }> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub);
  await registerPaymentKey(partnerId, env, { ...pub, kid });
  return { kid, private_jwk: { ...(await exportJWK(privateKey)), kid, alg: 'ES256' } };
}

export async function findPaymentKey(partnerId: string, env: Env, kid: string): Promise<RegisteredKey | undefined> {
  const jwk = await bookingStore.getPaymentKey(partnerId, env, kid);
  return jwk ? { kid, jwk } : undefined;
}
