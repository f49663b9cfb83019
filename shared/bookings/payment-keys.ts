import { exportJWK, generateKeyPair, calculateJwkThumbprint, importJWK, type JWK } from 'jose';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '../aws';
import { dataTableName } from '../config';
import type { RegisteredKey } from './payment';

/** Public payment-confirmation keys of a partner and environment: PAYKEYS#<partner>#<env> / <kid>. */
const key = (partnerId: string, env: string, kid: string) => ({ pk: `PAYKEYS#${partnerId}#${env}`, sk: kid });

export class PaymentKeyError extends Error {}

export async function registerPaymentKey(partnerId: string, env: 'live' | 'test', jwk: JWK): Promise<{ kid: string }> {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y) throw new PaymentKeyError('the key must be an EC P-256 public JWK (kty EC, crv P-256, x, y) for ES256');
  if (jwk.d) throw new PaymentKeyError('this is a private key: register the public JWK only (drop "d")');
  try {
    await importJWK(jwk, 'ES256');
  } catch (e) {
    throw new PaymentKeyError(`the JWK does not import as an ES256 key: ${(e as Error).message}`);
  }
  const publicJwk: JWK = { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
  const kid = jwk.kid ?? (await calculateJwkThumbprint(publicJwk));
  await ddb.send(
    new PutCommand({
      TableName: dataTableName(),
      Item: { ...key(partnerId, env, kid), type: 'payment_key', kid, jwk: { ...publicJwk, kid, alg: 'ES256', use: 'sig' }, created_at: new Date().toISOString() },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  ).catch((e: Error) => {
    if (e.name === 'ConditionalCheckFailedException') throw new PaymentKeyError(`a payment key with kid '${kid}' is already registered for this partner and environment; use a new kid to rotate`);
    throw e;
  });
  return { kid };
}

/** Sandbox convenience: a fresh key pair; the public half is registered, the private JWK returned once. */
export async function generatePaymentKey(partnerId: string): Promise<{ kid: string; private_jwk: JWK }> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub);
  await registerPaymentKey(partnerId, 'test', { ...pub, kid });
  return { kid, private_jwk: { ...(await exportJWK(privateKey)), kid, alg: 'ES256' } };
}

export async function findPaymentKey(partnerId: string, env: string, kid: string): Promise<RegisteredKey | undefined> {
  const r = await ddb.send(new GetCommand({ TableName: dataTableName(), Key: key(partnerId, env, kid) }));
  return r.Item ? { kid, jwk: r.Item.jwk as JWK } : undefined;
}
