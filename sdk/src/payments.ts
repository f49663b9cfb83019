import { CompactSign, importJWK, type JWK } from 'jose';

export interface PaymentConfirmationClaims {
  quote_id: string;
  /** The quote's net_amount, exactly. */
  amount: { amount: string; currency: 'MAD' };
  /** The bank's own payment id. */
  payment_reference: string;
  /** When the bank collected the payment (ISO 8601 UTC). */
  paid_at: string;
}

/**
 * The bank's payment confirmation for POST /bookings: a compact JWS, ES256,
 * with the registered key's `kid` in the protected header, over the JSON claims.
 */
export async function signPaymentConfirmation(privateJwk: JWK & { kid?: string }, claims: PaymentConfirmationClaims): Promise<string> {
  if (!privateJwk.kid) throw new Error('the private JWK has no kid: the service finds the registered public key by it');
  if (privateJwk.kty !== 'EC' || privateJwk.crv !== 'P-256' || !privateJwk.d) throw new Error('an EC P-256 private JWK is needed for ES256');
  const key = await importJWK(privateJwk, 'ES256');
  const payload = {
    quote_id: claims.quote_id,
    amount: { amount: claims.amount.amount, currency: claims.amount.currency },
    payment_reference: claims.payment_reference,
    paid_at: claims.paid_at,
  };
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg: 'ES256', kid: privateJwk.kid }).sign(key);
}
