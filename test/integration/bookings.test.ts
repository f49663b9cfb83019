import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { exportJWK, generateKeyPair } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { bookingKeys } from '../../shared/bookings/keys';
import { inventoryKeys } from '../../shared/catalog/keys';
import { eventKeys } from '../../shared/events/keys';
import { addDays, localDate } from '../../shared/kernel/time';
import { quoteKeys } from '../../shared/quotes/keys';
import { bookingBody, livePaymentKey, packs, paidClaims, quoteFor, sandboxPaymentKey, signPayment } from './booking-helpers';
import { admin, api, logLines, newPartner, pastIndexLag, testDb, until, write } from './helpers';

const today = localDate(new Date());
let P: Awaited<ReturnType<typeof packs>>;
beforeAll(async () => {
  P = await packs((await newPartner()).test_key);
  expect(P.SCHEDULED && P.FLEXIBLE).toBeTruthy();
});

async function eventsOf(partnerId: string, env: 'live' | 'test') {
  const { ddb, dataTable } = testDb();
  const r = await ddb.send(
    new QueryCommand({ TableName: dataTable, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': eventKeys.partition(partnerId, env) } }),
  );
  return (r.Items ?? []).map((i) => i.event as { type: string; test: boolean; data: Record<string, unknown> });
}

async function mailbox(to: string) {
  return (await admin(['mail:list', '--to', to, '--json'])).json.data as { subject: string; to: string }[];
}

const remaining = async (key: string, slug: string, packId: string, date: string, time: string | null) => {
  const r = await api('GET', `/adventures/${slug}/availability?from=${date}&to=${date}&rate_pack_id=${packId}`, { key });
  return (r.body.data.find((s: { start_time: string | null }) => s.start_time === time)?.remaining as number | undefined) ?? 0;
};

describe('POST /v1/bookings', () => {
  it('books a sandbox quote: CONFIRMED, test_mode, event, [TEST] e-mail, no operator notice, seats taken', async () => {
    const p = await newPartner();
    const jwk = await sandboxPaymentKey(p.partner_id);
    const date = addDays(today, 9);
    const before = await remaining(p.test_key, P.SCHEDULED.slug, P.SCHEDULED.id, date, P.SCHEDULED.start_time);
    const quote = await quoteFor(p.test_key, P.SCHEDULED, date, [{ age: 30 }, { age: 31 }]);
    const body = bookingBody(quote, await signPayment(jwk, paidClaims(quote)));
    const r = await write('POST', '/bookings', p.test_key, body);
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      status: 'CONFIRMED',
      test_mode: true,
      quote_id: quote.id,
      partner_reference: body.partner_reference,
      travel_date: date,
      net_amount: quote.net_amount,
    });
    expect(r.body.booking_number).toMatch(/^PTB-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(r.text).not.toContain('CUST-0001');
    expect(r.body.travelers[1]).toMatchObject({ first_name: 'Traveler1', last_name: 'El Idrissi', age_bracket: quote.travelers[1].age_bracket });
    expect(await remaining(p.test_key, P.SCHEDULED.slug, P.SCHEDULED.id, date, P.SCHEDULED.start_time)).toBe(before - 2);
    expect((await api('GET', `/quotes/${quote.id}`, { key: p.test_key })).body.booking_number).toBe(r.body.booking_number);

    const events = await eventsOf(p.partner_id, 'test');
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'booking.confirmed',
        test: true,
        data: expect.objectContaining({
          booking_number: r.body.booking_number,
          partner_reference: body.partner_reference,
          status: 'CONFIRMED',
          travel_date: date,
        }),
      }),
    );
    const mails = await mailbox(body.contact.email);
    expect(mails.map((m) => m.subject)).toEqual([`[TEST] Booking ${r.body.booking_number} confirmed: ${r.body.adventure.title}`]);
    const all = (await admin(['mail:list', '--limit', '500', '--json'])).json.data as { subject: string }[];
    expect(all.some((m) => m.subject.startsWith(`Booking ${r.body.booking_number}`))).toBe(false);
  });

  /** A new partner's live booking, with a signed request and a registered bank key. */
  async function liveBooking(daysAhead: number) {
    const p = await newPartner();
    const jwk = await livePaymentKey(p.partner_id);
    const quote = await quoteFor(p.live_key, P.FLEXIBLE, addDays(today, daysAhead));
    const body = bookingBody(quote, await signPayment(jwk, paidClaims(quote)));
    const r = await write('POST', '/bookings', p.live_key, body);
    expect(r.status, r.text).toBe(201);
    return { p, body, r };
  }

  it('books a live quote with a signed request and a registered bank key; the operator is notified', async () => {
    const { p, body, r } = await liveBooking(12);
    expect(r.body).toMatchObject({ test_mode: false, start_time: null });
    expect((await mailbox(body.contact.email)).map((m) => m.subject)).toEqual([`Booking ${r.body.booking_number} confirmed: ${r.body.adventure.title}`]);
    const ops = (await admin(['mail:list', '--to', 'operators@partner-travel.example', '--limit', '500', '--json'])).json.data as { subject: string }[];
    expect(ops.some((m) => m.subject.startsWith(`Booking ${r.body.booking_number} confirmed`))).toBe(true);
    // A sandbox key never sees it.
    expect((await api('GET', `/bookings/${r.body.booking_number}`, { key: p.test_key })).status).toBe(404);
  });

  it("logs SES's message id of each e-mail with the partner and booking, never the address: a bounce's message id leads back to them", async () => {
    const { p, body, r } = await liveBooking(13);
    const [mail] = (await admin(['mail:list', '--to', body.contact.email, '--json'])).json.data as { message_id: string }[];
    // The id SES answered, which its bounce and complaint records (the suppression list's MessageId) name.
    expect(mail?.message_id).toEqual(expect.any(String));
    const line = await until(
      () => logLines().find((l) => l.message === 'e-mail sent' && l.message_id === mail!.message_id),
      (l) => !!l,
    );
    expect(line).toMatchObject({ partner_id: p.partner_id, environment: 'live', booking_number: r.body.booking_number, kind: 'confirmed' });
    expect(JSON.stringify(line)).not.toContain(body.contact.email);
  });

  it('payment-key:register takes the same key under its kid again as a no-op, and refuses another key under that kid', async () => {
    const p = await newPartner();
    const dir = mkdtempSync(join(tmpdir(), 'jwk-'));
    const jwkFile = async (name: string) => {
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify({ ...(await exportJWK((await generateKeyPair('ES256')).publicKey)), kid: 'bank-2026' }));
      return file;
    };
    const register = (file: string) => admin(['payment-key:register', '--partner', p.partner_id, '--env', 'test', '--jwk', file, '--json']);
    const first = await jwkFile('first');
    expect((await register(first)).json).toEqual({ partner_id: p.partner_id, env: 'test', kid: 'bank-2026', created: true });
    expect((await register(first)).json).toEqual({ partner_id: p.partner_id, env: 'test', kid: 'bank-2026', created: false });
    const other = await register(await jwkFile('other'));
    expect(other.code).toBe(1);
    expect(JSON.parse(other.stderr).error.message).toMatch(/another payment key with kid 'bank-2026' is already registered/);
  });

  it('refuses bad payment confirmations with distinct codes', async () => {
    const p = await newPartner();
    const jwk = await sandboxPaymentKey(p.partner_id);
    const quote = await quoteFor(p.test_key, P.FLEXIBLE, addDays(today, 5));
    const other = await quoteFor(p.test_key, P.FLEXIBLE, addDays(today, 6));
    // Another key pair presenting the registered kid: the signature cannot verify.
    const stranger = { ...(await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey)), kid: jwk.kid, alg: 'ES256' };
    const send = async (confirmation: string) => (await write('POST', '/bookings', p.test_key, bookingBody(quote, confirmation))).body.code;
    expect(await send('not-a-jws')).toBe('payment.confirmation.malformed');
    expect(await send(await signPayment({ ...jwk, kid: 'unknown-kid' }, paidClaims(quote)))).toBe('payment.key.unknown');
    expect(await send(await signPayment(stranger, paidClaims(quote)))).toBe('payment.signature.invalid');
    expect(await send(await signPayment(jwk, paidClaims(other)))).toBe('payment.quote.mismatch');
    expect(await send(await signPayment(jwk, { ...paidClaims(quote), amount: { amount: '1.00', currency: 'MAD' } }))).toBe('payment.amount.mismatch');
    expect(await send(await signPayment(jwk, { quote_id: quote.id }))).toBe('payment.confirmation.malformed');
    expect(await send(await signPayment(jwk, { ...paidClaims(quote), amount: { amount: '99999999999999999999.00', currency: 'MAD' } }))).toBe(
      'payment.confirmation.malformed',
    );
    // A live key cannot use a sandbox payment key.
    const liveQuote = await quoteFor(p.live_key, P.FLEXIBLE, addDays(today, 5));
    expect((await write('POST', '/bookings', p.live_key, bookingBody(liveQuote, await signPayment(jwk, paidClaims(liveQuote))))).body.code).toBe(
      'payment.key.unknown',
    );
    // Nothing was booked.
    expect((await api('GET', '/bookings', { key: p.test_key })).body.data).toEqual([]);
  });

  it('answers conflicts with 409 typed codes and mismatches with 422', async () => {
    const p = await newPartner();
    const jwk = await sandboxPaymentKey(p.partner_id);
    const date = addDays(today, 7);
    const q1 = await quoteFor(p.test_key, P.FLEXIBLE, date, [{ age: 30 }, { age: 30 }]);
    const first = bookingBody(q1, await signPayment(jwk, paidClaims(q1)));
    expect((await write('POST', '/bookings', p.test_key, first)).status).toBe(201);
    const again = await write('POST', '/bookings', p.test_key, { ...first, partner_reference: 'OTHER' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('booking.quote.already_booked');

    const q2 = await quoteFor(p.test_key, P.FLEXIBLE, date);
    const dup = await write(
      'POST',
      '/bookings',
      p.test_key,
      bookingBody(q2, await signPayment(jwk, paidClaims(q2)), { partner_reference: first.partner_reference }),
    );
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('booking.partner_reference.duplicate');

    const q3 = await quoteFor(p.test_key, P.FLEXIBLE, date);
    const { ddb, dataTable } = testDb();
    await ddb.send(
      new UpdateCommand({
        TableName: dataTable,
        Key: quoteKeys.quote(q3.id),
        UpdateExpression: 'SET expires_at = :t',
        ExpressionAttributeValues: { ':t': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    const expired = await write('POST', '/bookings', p.test_key, bookingBody(q3, await signPayment(jwk, paidClaims(q3))));
    expect(expired.status).toBe(409);
    expect(expired.body.code).toBe('booking.quote.expired');

    const q4 = await quoteFor(p.test_key, P.FLEXIBLE, date, [{ age: 30 }, { age: 30 }]);
    const wrong = await write('POST', '/bookings', p.test_key, {
      ...bookingBody(q4, await signPayment(jwk, paidClaims(q4))),
      travelers: [{ first_name: 'Solo', last_name: 'Traveler' }],
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body).toMatchObject({ code: 'booking.travelers.mismatch', details: { travelers_quoted: 2, travelers_named: 1 } });
    expect((await write('POST', '/bookings', p.test_key, bookingBody({ id: randomUUID(), travelers: [1] }, 'x'))).body.code).toBe('booking.quote.not_found');
  });

  it('re-validates the slot at confirmation: a slot closed after the quote -> 422 booking.slot.unavailable', async () => {
    const p = await newPartner();
    const jwk = await livePaymentKey(p.partner_id);
    const date = addDays(today, 20);
    const quote = await quoteFor(p.live_key, P.SCHEDULED, date);
    await admin(['catalog:close-slot', '--rate-pack', P.SCHEDULED.id, '--date', date, '--time', P.SCHEDULED.start_time!, '--json']);
    const r = await write('POST', '/bookings', p.live_key, bookingBody(quote, await signPayment(jwk, paidClaims(quote))));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'booking.slot.unavailable', details: { reason: 'slot_closed' } });
  });
});

describe('concurrency: the last seats', () => {
  for (const mode of ['SCHEDULED', 'FLEXIBLE'] as const) {
    it(`50 concurrent bookings for a ${mode} slot with 5 seats left: exactly 5 confirmed, 45 x 422, capacity ends at 0`, async () => {
      const p = await newPartner();
      const jwk = await sandboxPaymentKey(p.partner_id);
      const pack = P[mode];
      const date = addDays(today, mode === 'SCHEDULED' ? 30 : 31);
      const quotes = [];
      for (let i = 0; i < 50; i++) quotes.push(await quoteFor(p.test_key, pack, date));
      // Leave 5 seats in this tenant's slot.
      const { ddb, dataTable } = testDb();
      await ddb.send(
        new UpdateCommand({
          TableName: dataTable,
          Key: inventoryKeys.row(inventoryKeys.sandbox(p.partner_id), pack.id, { date, start_time: pack.start_time }),
          UpdateExpression: 'SET sold = :s',
          ExpressionAttributeValues: { ':s': pack.capacity - 5 },
        }),
      );
      const bodies = await Promise.all(quotes.map(async (q) => bookingBody(q, await signPayment(jwk, paidClaims(q)))));
      const answers = await Promise.all(bodies.map((b) => write('POST', '/bookings', p.test_key, b)));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
      expect(statuses.filter((s) => s === 201)).toHaveLength(5);
      expect(answers.filter((a) => a.status === 422 && a.body.code === 'booking.slot.unavailable')).toHaveLength(45);
      expect(await remaining(p.test_key, pack.slug, pack.id, date, pack.start_time)).toBe(0);
      const inv = await ddb.send(
        new QueryCommand({
          TableName: dataTable,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': inventoryKeys.partition(inventoryKeys.sandbox(p.partner_id), pack.id) },
        }),
      );
      expect(inv.Items?.[0]?.sold).toBe(pack.capacity);
      expect((await eventsOf(p.partner_id, 'test')).filter((e) => e.type === 'booking.confirmed')).toHaveLength(5);
    });
  }
});

describe('reading bookings', () => {
  it('lists most recent first with status, customer_reference and creation-window filters, names as initials', async () => {
    const p = await newPartner();
    const jwk = await sandboxPaymentKey(p.partner_id);
    const made = [];
    for (const [i, cust] of ['CUST-A', 'CUST-B', 'CUST-A'].entries()) {
      const q = await quoteFor(p.test_key, P.FLEXIBLE, addDays(today, 10 + i));
      made.push((await write('POST', '/bookings', p.test_key, bookingBody(q, await signPayment(jwk, paidClaims(q)), { customer_reference: cust }))).body);
    }
    await write('POST', `/bookings/${made[1].booking_number}/cancel`, p.test_key, {});
    const all = (await api('GET', '/bookings', { key: p.test_key })).body;
    expect(all.data.map((b: { booking_number: string }) => b.booking_number)).toEqual(made.map((b) => b.booking_number).reverse());
    expect(all.data[0].travelers).toEqual([{ initials: 'A. E.' }]);
    expect(JSON.stringify(all)).not.toContain('Amina');
    const custA = (await api('GET', '/bookings?customer_reference=CUST-A', { key: p.test_key })).body.data.map(
      (b: { booking_number: string }) => b.booking_number,
    );
    expect(custA).toEqual([made[2].booking_number, made[0].booking_number]);
    expect((await api('GET', '/bookings?customer_reference=CUST-a', { key: p.test_key })).body.data).toEqual([]);
    expect((await api('GET', '/bookings?status=CANCELLED', { key: p.test_key })).body.data.map((b: { booking_number: string }) => b.booking_number)).toEqual([
      made[1].booking_number,
    ]);
    expect((await api('GET', '/bookings?status=CONFIRMED,COMPLETED&limit=1', { key: p.test_key })).body.meta.next_cursor).toBeTruthy();
    expect((await api('GET', '/bookings?status=PENDING', { key: p.test_key })).status).toBe(400);
    const windowed = (
      await api('GET', `/bookings?created_from=${encodeURIComponent(made[1].created_at)}&created_to=${encodeURIComponent(made[1].created_at)}`, {
        key: p.test_key,
      })
    ).body.data;
    expect(windowed.map((b: { booking_number: string }) => b.booking_number)).toEqual([made[1].booking_number]);
    // Another partner's customer with the same reference is a different hash.
    expect((await api('GET', '/bookings?customer_reference=CUST-A', { key: (await newPartner()).test_key })).body.data).toEqual([]);
  });

  it('lists a booking the moment it is created, and its cancellation the moment it is answered (the list reads its rows, never an index)', async () => {
    const p = await newPartner();
    const jwk = await sandboxPaymentKey(p.partner_id);
    const q = await quoteFor(p.test_key, P.FLEXIBLE, addDays(today, 12));
    const b = (await write('POST', '/bookings', p.test_key, bookingBody(q, await signPayment(jwk, paidClaims(q))))).body;
    const listed = async (query = '') =>
      (await api('GET', `/bookings${query}`, { key: p.test_key })).body.data.map(
        (x: { booking_number: string; status: string }) => `${x.booking_number} ${x.status}`,
      );
    expect(await listed()).toEqual([`${b.booking_number} CONFIRMED`]);
    expect((await write('POST', `/bookings/${b.booking_number}/cancel`, p.test_key, {})).status).toBe(200);
    expect(await listed()).toEqual([`${b.booking_number} CANCELLED`]);
    expect(await listed('?status=CONFIRMED')).toEqual([]);
  });

  it('stores the customer reference only as a keyed hash', async () => {
    const p = await newPartner();
    const jwk = await sandboxPaymentKey(p.partner_id);
    const q = await quoteFor(p.test_key, P.FLEXIBLE, addDays(today, 4));
    const secretRef = `CUSTOMER-${randomUUID()}`;
    const b = await write('POST', '/bookings', p.test_key, bookingBody(q, await signPayment(jwk, paidClaims(q)), { customer_reference: secretRef }));
    expect(b.status).toBe(201);
    const detail = await api('GET', `/bookings/${b.body.booking_number}`, { key: p.test_key });
    expect(detail.body.contact.first_name).toBe('Amina');
    expect(detail.text).not.toContain(secretRef);
    const { ddb, dataTable } = testDb();
    const dump = JSON.stringify((await ddb.send(new ScanCommand({ TableName: dataTable }))).Items);
    expect(dump).not.toContain(secretRef);
  });
});

describe('cancellation and completion', () => {
  it('refuses to cancel a booking whose adventure has started', async () => {
    const p = await newPartner();
    const jwk = await sandboxPaymentKey(p.partner_id);
    const q = await quoteFor(p.test_key, P.FLEXIBLE, addDays(today, 3));
    const b = (await write('POST', '/bookings', p.test_key, bookingBody(q, await signPayment(jwk, paidClaims(q))))).body;
    const { ddb, dataTable } = testDb();
    await ddb.send(
      new UpdateCommand({
        TableName: dataTable,
        Key: bookingKeys.booking(b.booking_number),
        UpdateExpression: 'SET starts_at = :s',
        ExpressionAttributeValues: { ':s': new Date(Date.now() - 60_000).toISOString() },
      }),
    );
    const r = await write('POST', `/bookings/${b.booking_number}/cancel`, p.test_key, {});
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'booking.not_cancellable', details: { status: 'CONFIRMED' } });
  });

  it('previews the refund, cancels, releases the seats, emits booking.cancelled, sends the e-mail; a second cancel is 409', async () => {
    const p = await newPartner();
    const jwk = await sandboxPaymentKey(p.partner_id);
    const date = addDays(today, 15);
    const before = await remaining(p.test_key, P.SCHEDULED.slug, P.SCHEDULED.id, date, P.SCHEDULED.start_time);
    const q = await quoteFor(p.test_key, P.SCHEDULED, date, [{ age: 30 }, { age: 30 }, { age: 30 }]);
    const body = bookingBody(q, await signPayment(jwk, paidClaims(q)));
    const b = (await write('POST', '/bookings', p.test_key, body)).body;
    const preview = (await api('GET', `/bookings/${b.booking_number}/cancellation-quote`, { key: p.test_key })).body;
    expect(preview).toMatchObject({ cancellable: true, currency: 'MAD', amount_paid: b.net_amount, policy: b.cancellation_policy });
    // 15 days ahead, the policy's largest threshold (at most 7 days in the seed) applies.
    const top = [...b.cancellation_policy.rules].sort((x: { hours_before: number }, y: { hours_before: number }) => y.hours_before - x.hours_before)[0];
    expect(preview.applied_rule).toEqual(top);
    expect(preview.refund_percent).toBe(top.refund_percent);
    expect(Math.round(Number(preview.refundable_amount.amount) * 100)).toBe(
      Math.floor((Math.round(Number(b.net_amount.amount) * 100) * top.refund_percent) / 100),
    );
    expect(Date.parse(preview.valid_until)).toBeGreaterThan(Date.now());

    const cancelled = await write('POST', `/bookings/${b.booking_number}/cancel`, p.test_key, { reason: 'customer request' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      status: 'CANCELLED',
      cancellation: { cancelled_by: 'PARTNER', reason: 'customer request', refund_amount: preview.refundable_amount, fee_amount: preview.fee_amount },
    });
    expect(await remaining(p.test_key, P.SCHEDULED.slug, P.SCHEDULED.id, date, P.SCHEDULED.start_time)).toBe(before);
    const again = await write('POST', `/bookings/${b.booking_number}/cancel`, p.test_key, {});
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('booking.not_cancellable');
    // Nothing left to cancel: no refund figures that would read as a second refund.
    expect((await api('GET', `/bookings/${b.booking_number}/cancellation-quote`, { key: p.test_key })).body).toMatchObject({
      cancellable: false,
      amount_paid: b.net_amount,
      refundable_amount: null,
      fee_amount: null,
      refund_percent: null,
      applied_rule: null,
      valid_until: null,
    });
    expect((await eventsOf(p.partner_id, 'test')).map((e) => e.type).sort()).toEqual(['booking.cancelled', 'booking.confirmed']);
    expect((await mailbox(body.contact.email)).map((m) => m.subject)[0]).toBe(`[TEST] Booking ${b.booking_number} cancelled: ${b.adventure.title}`);
  });

  it('the service can cancel (full refund) and the completion job completes what travelled; both refuse a second change', async () => {
    const p = await newPartner();
    const jwk = await sandboxPaymentKey(p.partner_id);
    const date = addDays(today, 25);
    const mk = async () => {
      const q = await quoteFor(p.test_key, P.FLEXIBLE, date);
      return (await write('POST', '/bookings', p.test_key, bookingBody(q, await signPayment(jwk, paidClaims(q))))).body;
    };
    const a = await mk();
    const b = await mk();
    const byService = await admin(['booking:cancel', '--booking', a.booking_number, '--reason', 'operator closed', '--json']);
    expect(byService.json).toMatchObject({ status: 'CANCELLED', cancellation: { cancelled_by: 'SERVICE', refund_amount: a.net_amount, refund_percent: 100 } });

    // Travel takes place: stage b's date in the past, as days passing would (the job refuses future dates).
    const yesterday = addDays(today, -1);
    const { ddb, dataTable } = testDb();
    await ddb.send(
      new UpdateCommand({
        TableName: dataTable,
        Key: bookingKeys.booking(b.booking_number),
        UpdateExpression: 'SET travel_date = :d, starts_at = :s, gsi2pk = :g',
        ExpressionAttributeValues: {
          ':d': yesterday,
          ':s': new Date(Date.now() - 86_400_000).toISOString(),
          ':g': bookingKeys.byTravelDatePartition(yesterday),
        },
      }),
    );
    await pastIndexLag(); // the job reads the trips of a date through an index
    expect((await admin(['booking:complete', '--date', date, '--json'])).code).toBe(1); // not a past date
    const done = await admin(['booking:complete', '--date', yesterday, '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.json.completed).toBeGreaterThanOrEqual(1);
    const completed = (await api('GET', `/bookings/${b.booking_number}`, { key: p.test_key })).body;
    expect(completed).toMatchObject({ status: 'COMPLETED', completed_at: expect.any(String) });
    expect((await api('GET', `/bookings/${a.booking_number}`, { key: p.test_key })).body.status).toBe('CANCELLED');
    expect((await write('POST', `/bookings/${b.booking_number}/cancel`, p.test_key, {})).body.code).toBe('booking.not_cancellable');
    const types = (await eventsOf(p.partner_id, 'test')).map((e) => e.type);
    expect(types.filter((t) => t === 'booking.completed')).toHaveLength(1);
    expect(types.filter((t) => t === 'booking.cancelled')).toHaveLength(1);
    // Running it again changes nothing.
    await admin(['booking:complete', '--date', yesterday, '--json']);
    expect((await eventsOf(p.partner_id, 'test')).filter((e) => e.type === 'booking.completed')).toHaveLength(1);
  });
});
