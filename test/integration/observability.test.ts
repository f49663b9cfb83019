import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import { bookingBody, livePaymentKey, packs, paidClaims, signPayment } from './booking-helpers';
import { api, logLines, logText, newPartner, requestLine, signatureHeaders, until } from './helpers';

describe('logs of a full booking flow (quote, signed payment confirmation, booking, cancellation) in production', () => {
  it('carry the request id, route, partner and environment on every line, and none of its secrets or personal data', async () => {
    const p = await newPartner();
    const jwk = await livePaymentKey(p.partner_id);
    const P = await packs(p.live_key);
    const signatures: string[] = [];
    const requestIds: string[] = [];
    const signed = async (method: string, path: string, body: unknown) => {
      const raw = JSON.stringify(body);
      const sig = signatureHeaders(p.live_key, method, path, raw);
      signatures.push(sig['x-signature']);
      const r = await api(method, path, {
        key: p.live_key,
        rawBody: raw,
        headers: { ...sig, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      });
      requestIds.push(r.headers.get('x-request-id')!);
      return r;
    };

    const quote = await signed('POST', '/quotes', {
      rate_pack_id: P.FLEXIBLE.id,
      start_date: addDays(localDate(new Date()), 9),
      start_time: null,
      travelers: [{ age: 30 }],
    });
    expect(quote.status, quote.text).toBe(201);
    const claims = paidClaims(quote.body);
    const confirmation = await signPayment(jwk, claims);
    const tag = randomUUID().slice(0, 8);
    const personal = {
      customer_reference: `CUSTREF-${tag}`,
      contact: {
        first_name: `Zineb${tag}`,
        last_name: `Bennani${tag}`,
        email: `zineb.${tag}@bank-customer.example`,
        phone: `+212 6${tag.replace(/\D/g, '7').slice(0, 8)}`,
      },
      travelers: [{ first_name: `Yasmine${tag}`, last_name: `Alaoui${tag}` }],
    };
    const booking = await signed('POST', '/bookings', bookingBody(quote.body, confirmation, personal));
    expect(booking.status, booking.text).toBe(201);
    const cancel = await signed('POST', `/bookings/${booking.body.booking_number}/cancel`, { reason: `customer ${personal.contact.last_name} asked` });
    expect(cancel.status, cancel.text).toBe(200);
    const read = await api('GET', `/bookings/${booking.body.booking_number}`, { key: p.live_key });
    requestIds.push(read.headers.get('x-request-id')!);

    // Each request's line is there, with its context from the invocation's keys.
    await until(
      () => requestIds.map(requestLine),
      (ls) => ls.every(Boolean),
    );
    for (const id of requestIds) {
      expect(requestLine(id), id).toMatchObject({
        request_id: id,
        partner_id: p.partner_id,
        environment: 'live',
        key_id: p.live_key_id,
        stage: 'local',
        level: 'INFO',
      });
      expect(requestLine(id)!.route).toMatch(/^(GET|POST) \/v1\//);
    }
    const flowLines = logLines().filter((l) => requestIds.includes(l.request_id));
    expect(flowLines.length).toBeGreaterThanOrEqual(requestIds.length);

    const forbidden = {
      'live key': p.live_key,
      'live key secret': p.live_key.split('_')[3]!,
      'sandbox key secret': p.test_key.split('_')[3]!,
      'payment confirmation': confirmation,
      'payment confirmation signature': confirmation.split('.')[2]!,
      'payment reference': claims.payment_reference,
      'bank private key': String(jwk.d),
      'customer reference': personal.customer_reference,
      'contact first name': personal.contact.first_name,
      'contact last name': personal.contact.last_name,
      'contact e-mail': personal.contact.email,
      'contact phone': personal.contact.phone,
      'traveler first name': personal.travelers[0]!.first_name,
      'traveler last name': personal.travelers[0]!.last_name,
      ...Object.fromEntries(signatures.map((s, i) => [`request signature ${i}`, s])),
    };
    // The whole log of the stack (every test's lines), not only this flow's.
    const text = logText();
    for (const [what, value] of Object.entries(forbidden)) expect(text.includes(value), `${what} appears in the logs`).toBe(false);
  });

  it('is JSON on every line (logs and EMF metrics)', () => {
    const raw = logText().split('\n').filter(Boolean);
    expect(raw.length).toBeGreaterThan(0);
    for (const l of raw) expect(() => JSON.parse(l), l.slice(0, 200)).not.toThrow();
  });
});

describe('concurrent requests', () => {
  it('each get their own request id, route and partner on their log line (one process, one context per invocation)', async () => {
    const partners = await Promise.all([newPartner(), newPartner(), newPartner()]);
    const paths = ['/me', '/quotes?limit=2', '/adventures?limit=1', '/team/members', '/bookings?limit=1', '/webhooks'];
    const calls = partners.flatMap((p) => paths.flatMap((path) => [0, 1].map(() => ({ p, path }))));
    const answers = await Promise.all(
      calls.map(async ({ p, path }) => {
        const r = await api('GET', path, { key: p.test_key });
        expect(r.status, `${path} ${r.text}`).toBe(200);
        return { p, path, id: r.headers.get('x-request-id')! };
      }),
    );
    expect(new Set(answers.map((a) => a.id)).size).toBe(calls.length);
    await until(
      () => answers.map((a) => requestLine(a.id)),
      (ls) => ls.every(Boolean),
    );
    const lines = logLines();
    for (const a of answers) {
      const mine = lines.filter((l) => l.request_id === a.id);
      expect(mine.length, a.id).toBeGreaterThanOrEqual(1);
      for (const l of mine) {
        if (l._aws) continue;
        expect(l, `${a.path} ${a.id}`).toMatchObject({ route: `GET /v1${a.path.split('?')[0]}`, partner_id: a.p.partner_id, environment: 'test' });
      }
    }
  });
});
