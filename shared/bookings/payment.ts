import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import * as z from 'zod';
import { singleLine } from '../http/bounds';
import { ApiError } from '../kernel/errors';

/**
 * The bank's payment confirmation: a compact JWS (ES256) over
 * {quote_id, amount: Money, payment_reference, paid_at}, signed with a key
 * whose public half is registered for the partner and environment; the JWS
 * header names it with `kid`.
 */
export const PaymentClaims = z.object({
  quote_id: z.uuid(),
  amount: z.object({ amount: z.string().regex(/^\d{1,9}\.\d{2}$/, 'a MAD amount with two decimals'), currency: z.literal('MAD') }),
  payment_reference: singleLine(z.string()).min(1).max(128),
  paid_at: z.iso.datetime({ offset: true }),
});

/** How far in the future paid_at may be: clock skew between the bank and the service, as for signed requests. */
export const PAID_AT_SKEW_MS = 300_000;
/** How old paid_at may be: a quote lives 30 minutes, so a payment for it is never a day old. */
export const PAID_AT_MAX_AGE_MS = 24 * 3_600_000;
export type PaymentClaims = z.infer<typeof PaymentClaims>;

export interface RegisteredKey {
  kid: string;
  jwk: JWK;
}

const malformed = (why: string) => new ApiError('payment.confirmation.malformed', `payment_confirmation is not a valid compact JWS: ${why}.`);

export async function verifyPaymentConfirmation(
  jws: string,
  lookup: (kid: string) => Promise<RegisteredKey | undefined>,
  now = new Date(),
): Promise<{ claims: PaymentClaims; kid: string }> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jws);
  } catch {
    throw malformed('expected three base64url parts with a JSON protected header');
  }
  if (header.alg !== 'ES256')
    throw new ApiError('payment.confirmation.malformed', `payment_confirmation must be signed with ES256, not ${String(header.alg)}.`, {
      alg: header.alg ?? null,
    });
  if (typeof header.kid !== 'string' || !header.kid) throw malformed('the protected header has no kid');
  const key = await lookup(header.kid);
  if (!key) {
    throw new ApiError('payment.key.unknown', `No payment key with kid '${header.kid}' is registered for this partner and environment.`, { kid: header.kid });
  }
  let payload: Uint8Array;
  try {
    const verified = await compactVerify(jws, await importJWK(key.jwk, 'ES256'), { algorithms: ['ES256'] });
    payload = verified.payload;
  } catch {
    throw new ApiError('payment.signature.invalid', 'The payment confirmation signature does not verify with the registered key.', { kid: header.kid });
  }
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    throw malformed('the payload is not JSON');
  }
  const parsed = PaymentClaims.safeParse(claims);
  if (!parsed.success) {
    throw new ApiError('payment.confirmation.malformed', 'The payment confirmation lacks required claims.', {
      errors: parsed.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })),
    });
  }
  const paidAt = Date.parse(parsed.data.paid_at);
  const [earliest, latest] = [new Date(now.getTime() - PAID_AT_MAX_AGE_MS), new Date(now.getTime() + PAID_AT_SKEW_MS)];
  if (paidAt < earliest.getTime() || paidAt > latest.getTime()) {
    const message = `paid_at must be within the last 24 hours and not in the future (5 minutes of clock skew allowed): from ${earliest.toISOString()} to ${latest.toISOString()}.`;
    throw new ApiError('payment.confirmation.malformed', `The payment confirmation's ${message}`, {
      errors: [{ field: 'paid_at', message, received: parsed.data.paid_at }],
    });
  }
  return { claims: parsed.data, kid: header.kid };
}
