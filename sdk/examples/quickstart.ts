/**
 * Quickstart: the whole path of a booking with the SDK, against the local stack.
 *
 *   npm start                                   # in another terminal
 *   npm run -s sdk:quickstart
 *
 * browse -> quote -> sign a payment confirmation -> book -> receive booking.confirmed
 * on a local receiver and verify it -> cancellation quote -> cancel.
 * It acts on the local stack the admin CLI finds (PORT and LOCAL_STATE_DIR as for npm start),
 * with its demo partner's sandbox key. PTBS_BASE_URL and PTBS_API_KEY point it elsewhere
 * (another stack, your own key); PTBS_PAYMENT_JWK: a file with the sandbox payment key's
 * private JWK (else one is generated with the admin CLI, as the README shows).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { createClient, PartnerApiError, signPaymentConfirmation, verifyWebhook, type WebhookEvent } from '../src/index';

/** The local stack's operator CLI (npm run -s admin -- ...), which finds the running stack from PORT and LOCAL_STATE_DIR. */
const admin = (args: string[]) =>
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args, '--json'], {
    cwd: resolve(import.meta.dirname, '..', '..'),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

// Locally: the running stack and its demo partner's sandbox key, as the admin CLI finds them.
let local: { base_url: string; test_key: string } | undefined;
if (!process.env.PTBS_BASE_URL || !process.env.PTBS_API_KEY) {
  try {
    local = JSON.parse(admin(['demo:keys']));
  } catch (e) {
    const stderr = String((e as { stderr?: string }).stderr ?? '');
    const said = (() => {
      try {
        return JSON.parse(stderr).error.message as string;
      } catch {
        return stderr.trim();
      }
    })();
    console.error(`${said}\n(or point the quickstart at a stack with PTBS_BASE_URL and PTBS_API_KEY)`);
    process.exit(1);
  }
}
const baseUrl = process.env.PTBS_BASE_URL ?? local!.base_url;
const apiKey = process.env.PTBS_API_KEY ?? local!.test_key;
const step = (n: number, text: string) => console.log(`${n}. ${text}`);

const client = createClient({ apiKey, baseUrl });

// 0. Who am I?
const me = await client.meta.getMe();
console.log(`Partner ${me.partner.name} (${me.environment}), role ${me.member?.role ?? '-'}`);

// 1. Browse: an adventure in Marrakech and a bookable slot with room for two, a week ahead (still cancellable).
const from = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
const adventures = await client.request('listAdventures', { query: { city: 'Marrakech', limit: 5 } });
let slot: { slug: string; rate_pack_id: string; date: string; start_time: string | null } | undefined;
for (const adventure of adventures.data) {
  const availability = await client.catalog.getAvailability({ path: { slug: adventure.slug }, query: { from } });
  const s = availability.data.find((x) => x.remaining >= 2);
  if (s) {
    slot = { slug: adventure.slug, rate_pack_id: s.rate_pack_id, date: s.date, start_time: s.start_time };
    break;
  }
}
if (!slot) throw new Error(`no bookable slot in Marrakech in the two weeks after ${from}`);
step(1, `browse: ${slot.slug}, ${slot.date} ${slot.start_time ?? '(all day)'}`);

// 2. Quote: price-locked for 30 minutes.
const quote = await client.quotes.create({
  body: { rate_pack_id: slot.rate_pack_id, start_date: slot.date, start_time: slot.start_time, travelers: [{ age: 35 }, { age: 33 }] },
});
step(2, `quote ${quote.id}: ${quote.net_amount.amount} ${quote.net_amount.currency}, expires ${quote.expires_at}`);

// A local receiver for the webhook, and its endpoint (the local stack accepts http://127.0.0.1 receivers).
const received: WebhookEvent[] = [];
let secret = '';
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      received.push(verifyWebhook(Buffer.concat(chunks), req.headers, secret)); // the raw bytes, before any parsing
      res.writeHead(204).end();
    } catch (e) {
      console.error(`   receiver: refused a delivery: ${(e as Error).message}`);
      res.writeHead(400).end();
    }
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const endpoint = await client.webhooks.create({
  body: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`, event_types: ['booking.confirmed'], description: 'quickstart' },
});
secret = endpoint.signing_secret ?? '';

try {
  // 3. The bank collected the payment: it signs a payment confirmation (ES256 JWS) with its registered key.
  const jwk = process.env.PTBS_PAYMENT_JWK
    ? JSON.parse(readFileSync(process.env.PTBS_PAYMENT_JWK, 'utf8'))
    : JSON.parse(admin(['payment-key:generate', '--partner', me.partner.id, '--env', 'test'])).private_jwk;
  const paymentConfirmation = await signPaymentConfirmation(jwk, {
    quote_id: quote.id,
    amount: quote.net_amount,
    payment_reference: `PAY-${Date.now()}`,
    paid_at: new Date().toISOString(),
  });
  step(3, `payment confirmation signed with kid ${jwk.kid}`);

  // 4. Book. The SDK sends an Idempotency-Key (and signs live writes); a retry reuses it.
  const bookingBody = {
    quote_id: quote.id,
    partner_reference: `QS-${Date.now()}`,
    customer_reference: 'customer-8812',
    contact: { first_name: 'Amina', last_name: 'El Idrissi', email: 'amina@example.com', phone: '+212 600 000 000' },
    travelers: [
      { first_name: 'Amina', last_name: 'El Idrissi' },
      { first_name: 'Youssef', last_name: 'El Idrissi' },
    ],
    payment_confirmation: paymentConfirmation,
  };
  const booking = await client.bookings.create({ body: bookingBody });
  step(4, `booked ${booking.booking_number}: ${booking.status}`);

  // 5. The booking.confirmed webhook arrives on the receiver, verified.
  const deadline = Date.now() + 30_000;
  const confirmed = () => received.find((e) => e.type === 'booking.confirmed' && e.data.booking_number === booking.booking_number);
  while (!confirmed()) {
    if (Date.now() > deadline) throw new Error('no booking.confirmed webhook within 30 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  const event = confirmed()!;
  step(5, `webhook ${event.type} ${event.id} verified (test: ${event.test})`);

  // 6. Cancellation quote, then cancel.
  const preview = await client.bookings.getCancellationQuote({ path: { booking_number: booking.booking_number } });
  // Its refund figures are null when the booking cannot be cancelled (cancellable: false).
  step(6, `cancellation quote: cancellable ${preview.cancellable}, refund ${preview.refundable_amount?.amount}, fee ${preview.fee_amount?.amount} MAD`);
  const cancelled = await client.bookings.cancel({ path: { booking_number: booking.booking_number }, body: { reason: 'quickstart' } });
  step(7, `cancelled: ${cancelled.status}`);

  // Errors are one class with the documented code: booking the same quote again is refused.
  const again = await client.bookings
    .create({ body: { ...bookingBody, partner_reference: `${bookingBody.partner_reference}-again` } })
    .catch((e: unknown) => e);
  if (!(again instanceof PartnerApiError)) throw new Error('booking a used quote again should fail');
  console.log(`   booking the quote again: ${again.status} ${again.code} (request ${again.request_id})`);
  console.log('Quickstart done.');
} finally {
  await client.webhooks.delete({ path: { id: endpoint.id } }).catch(() => undefined);
  receiver.close();
}
