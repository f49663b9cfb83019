import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactSign, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { admin, api, write } from './helpers';

/** What a bank does: signs {quote_id, amount, payment_reference, paid_at} with its private key (ES256, kid in the header). */
export async function signPayment(privateJwk: JWK, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: 'ES256', kid: privateJwk.kid!, ...header })
    .sign(await importJWK(privateJwk, 'ES256'));
}

export async function sandboxPaymentKey(partnerId: string): Promise<JWK> {
  const r = await admin(['payment-key:generate', '--partner', partnerId, '--env', 'test', '--json']);
  if (r.code !== 0) throw new Error(r.stderr);
  return r.json.private_jwk as JWK;
}

/** A production key: the bank generates the pair and registers only the public half. */
export async function livePaymentKey(partnerId: string): Promise<JWK> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = `bank-${randomUUID().slice(0, 8)}`;
  const file = join(mkdtempSync(join(tmpdir(), 'jwk-')), 'public.json');
  writeFileSync(file, JSON.stringify({ ...(await exportJWK(publicKey)), kid }));
  const r = await admin(['payment-key:register', '--partner', partnerId, '--env', 'live', '--jwk', file, '--json']);
  if (r.code !== 0) throw new Error(r.stderr);
  return { ...(await exportJWK(privateKey)), kid, alg: 'ES256' };
}

export const paidClaims = (quote: { id: string; net_amount: { amount: string } }) => ({
  quote_id: quote.id,
  amount: { amount: quote.net_amount.amount, currency: 'MAD' },
  payment_reference: `PAY-${randomUUID().slice(0, 8)}`,
  paid_at: new Date().toISOString(),
});

export function bookingBody(quote: { id: string; travelers: unknown[] }, confirmation: string, overrides: Record<string, unknown> = {}) {
  return {
    quote_id: quote.id,
    partner_reference: `REF-${randomUUID()}`,
    customer_reference: 'CUST-0001',
    contact: { first_name: 'Amina', last_name: 'El Idrissi', email: `amina+${randomUUID().slice(0, 6)}@example.com`, phone: '+212 600 000 000' },
    travelers: quote.travelers.map((_, i) => ({ first_name: i === 0 ? 'Amina' : `Traveler${i}`, last_name: 'El Idrissi' })),
    payment_confirmation: confirmation,
    ...overrides,
  };
}

/** A SCHEDULED and a FLEXIBLE seed pack that take single travelers of 30, with their slot for `date`. */
export async function packs(key: string) {
  const list = (await api('GET', '/adventures?limit=100', { key })).body.data as { slug: string; bookable: boolean }[];
  const found: Record<string, { id: string; start_time: string | null; capacity: number; slug: string }> = {};
  for (const a of list.filter((x) => x.bookable)) {
    const d = (await api('GET', `/adventures/${a.slug}`, { key })).body;
    for (const rp of d.rate_packs) {
      const adult = rp.age_brackets.some((b: { min_age: number; max_age: number }) => b.min_age <= 30 && b.max_age >= 30);
      if (!adult || rp.min_travelers !== 1 || rp.schedule.weekdays.length !== 7 || rp.booking_window_days < 60) continue;
      if (rp.booking_mode === 'SCHEDULED' && !found.SCHEDULED && rp.schedule.capacity_per_departure >= 8)
        found.SCHEDULED = { id: rp.id, start_time: rp.schedule.start_times[0], capacity: rp.schedule.capacity_per_departure, slug: a.slug };
      if (rp.booking_mode === 'FLEXIBLE' && !found.FLEXIBLE && rp.schedule.daily_capacity >= 8)
        found.FLEXIBLE = { id: rp.id, start_time: null, capacity: rp.schedule.daily_capacity, slug: a.slug };
    }
    if (found.SCHEDULED && found.FLEXIBLE) break;
  }
  return found as Record<'SCHEDULED' | 'FLEXIBLE', { id: string; start_time: string | null; capacity: number; slug: string }>;
}

export async function quoteFor(key: string, pack: { id: string; start_time: string | null }, date: string, travelers = [{ age: 30 }]) {
  const r = await write('POST', '/quotes', key, { rate_pack_id: pack.id, start_date: date, start_time: pack.start_time, travelers });
  if (r.status !== 201) throw new Error(`quote failed: ${r.text}`);
  return r.body;
}
