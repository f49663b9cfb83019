import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAccessStore } from '../../shared/access/store';
import { transact } from '../../shared/db/client';
import { money } from '../../shared/kernel/money';
import { addDays, localDate } from '../../shared/kernel/time';
import { nextPeriod, periodOf, periodStart, previousPeriod } from '../../shared/settlements/period';
import { makeSettlementStore } from '../../shared/settlements/store';
import { bookingBody, livePaymentKey, paidClaims, quoteFor, sandboxPaymentKey, signPayment } from './booking-helpers';
import { admin, adminProcess, api, baseUrl, memberWithRole, newPartner, type ReceivedEvent, startEventReceiver, testDb, write } from './helpers';

const today = localDate(new Date());
const running = periodOf(new Date());
const next = nextPeriod(running);

// A receiver for the settlement events.
let receiver: Awaited<ReturnType<typeof startEventReceiver>>;
let hookUrl: string;
let received: ReceivedEvent[];
beforeAll(async () => {
  receiver = await startEventReceiver('/settlements');
  ({ url: hookUrl, received } = receiver);
});
afterAll(() => receiver.close());

const until = async <T>(fn: () => T | Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
};

/** A document as bytes (the api() helper reads text). */
async function download(path: string, key: string) {
  const res = await fetch(`${baseUrl()}${path}`, { headers: { authorization: `Bearer ${key}` }, redirect: 'manual' });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The rows of a statement: header block as a map, then the booking rows. */
function statement(bytes: Buffer) {
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const lines = bytes.subarray(3).toString('utf8').split('\r\n');
  const blank = lines.indexOf('');
  const head = Object.fromEntries(lines.slice(0, blank).map((l) => l.split(';') as [string, string]));
  expect(lines[blank + 1]).toBe('BookingNumber;PartnerReference;TravelDate;ConfirmationDate;Adventure;Status;AmountToChargeClient');
  const rows = lines
    .slice(blank + 2)
    .filter(Boolean)
    .map((l) => {
      const c = l.split(';');
      return { booking: c[0]!, reference: c[1]!, travel: c[2]!, confirmed: c[3]!, status: c[5]!, amount: c[6]! };
    });
  return { head, rows };
}
const cents = (amount: string) => Math.round(Number(amount) * 100);

/** A rate pack of an adventure that takes one traveler of 30. */
async function pack(key: string, slug: string) {
  const d = (await api('GET', `/adventures/${slug}`, { key })).body;
  const rp = d.rate_packs.find((r: { min_travelers: number }) => r.min_travelers === 1);
  return { id: rp.id as string, start_time: (rp.booking_mode === 'FLEXIBLE' ? null : rp.schedule.start_times[0]) as string | null };
}

async function book(key: string, jwk: JWK, p: { id: string; start_time: string | null }, date: string) {
  const quote = await quoteFor(key, p, date);
  const r = await write('POST', '/bookings', key, bookingBody(quote, await signPayment(jwk, paidClaims(quote))));
  expect(r.status, r.text).toBe(201);
  return r.body as { booking_number: string; partner_reference: string; net_amount: { amount: string }; travel_date: string };
}

const settlements = async (key: string, query = '') => (await api('GET', `/settlements${query}`, { key })).body.data as any[];

describe('settlements in the sandbox, through HTTP and the test helpers', () => {
  it('runs the whole month: DRAFT with a running total, issue with number, PDF and CSV, adjustments next month, PAID, events', async () => {
    const p = await newPartner();
    const K = p.test_key;
    const jwk = await sandboxPaymentKey(p.partner_id);
    expect((await write('POST', '/webhooks', K, { url: hookUrl, event_types: ['settlement.issued', 'settlement.paid'] })).status).toBe(201);
    const flexible = await pack(K, 'khamlia-gnawa-music-and-nomad-family-visit'); // NON_REFUNDABLE
    const strict = await pack(K, 'mount-toubkal-two-day-summit-trek'); // STRICT_7D: 50% between 7 and 3 days
    const generic = await pack(K, 'marrakech-medina-and-souks-guided-walking-tour');

    const kept = await book(K, jwk, generic, addDays(today, 20));
    const feeAll = await book(K, jwk, flexible, addDays(today, 5));
    const feeHalf = await book(K, jwk, strict, addDays(today, 4));
    const serviceCancelled = await book(K, jwk, generic, addDays(today, 21));
    const completed = await book(K, jwk, generic, addDays(today, 22));
    const laterCancelled = await book(K, jwk, generic, addDays(today, 23));

    const c1 = await write('POST', `/bookings/${feeAll.booking_number}/cancel`, K, { reason: 'customer' });
    const c2 = await write('POST', `/bookings/${feeHalf.booking_number}/cancel`, K, {});
    expect(c1.body.cancellation.fee_amount).toEqual(feeAll.net_amount);
    expect(cents(c2.body.cancellation.fee_amount.amount)).toBeGreaterThan(0);
    expect(cents(c2.body.cancellation.fee_amount.amount)).toBeLessThan(cents(feeHalf.net_amount.amount));
    const sc = await write('POST', `/test-helpers/bookings/${serviceCancelled.booking_number}/service-cancel`, K);
    expect(sc.body).toMatchObject({ status: 'CANCELLED', cancellation: { cancelled_by: 'SERVICE', refund_percent: 100, fee_amount: { amount: '0.00' } } });
    const done = await write('POST', `/test-helpers/bookings/${completed.booking_number}/complete`, K);
    expect(done.body).toMatchObject({ status: 'COMPLETED' });
    expect((await write('POST', `/test-helpers/bookings/${completed.booking_number}/complete`, K)).body.code).toBe('booking.not_completable');

    const expected =
      cents(kept.net_amount.amount) +
      cents(c1.body.cancellation.fee_amount.amount) +
      cents(c2.body.cancellation.fee_amount.amount) +
      cents(completed.net_amount.amount) +
      cents(laterCancelled.net_amount.amount);
    const [draft] = await settlements(K);
    expect(draft).toMatchObject({
      status: 'DRAFT',
      number: null,
      test_mode: true,
      period_start: periodStart(running),
      total_due: money(expected),
      booking_count: 6,
      line_count: 6,
      links: { invoice_pdf: null, statement_csv: null },
    });
    expect((await download(`/settlements/${draft.id}/invoice.pdf`, K)).status).toBe(409);
    expect((await api('GET', `/settlements/${draft.id}/statement.csv`, { key: K })).body.code).toBe('settlement.not_issued');
    expect((await write('POST', `/test-helpers/settlements/${draft.id}/pay`, K)).body.code).toBe('settlement.transition.invalid');

    // Close the running month now.
    const idem = randomUUID();
    const run = await write('POST', '/test-helpers/settlements/run', K, undefined, { idempotencyKey: idem });
    expect(run.status, run.text).toBe(200);
    expect(run.body.data).toHaveLength(1);
    const issued = run.body.data[0];
    expect(issued).toMatchObject({ id: draft.id, status: 'ISSUED', number: 'TEST-PTS-000001', total_due: money(expected), issue_date: today });
    expect(issued.due_date).toBe(addDays(today, 15));
    const replay = await write('POST', '/test-helpers/settlements/run', K, undefined, { idempotencyKey: idem });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(run.body);
    // Running it again issues nothing.
    expect((await write('POST', '/test-helpers/settlements/run', K)).body.data).toEqual([]);

    const pdf = await download(issued.links.invoice_pdf.replace(/^\/v1/, ''), K);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe('attachment; filename="invoice-TEST-PTS-000001.pdf"');
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.bytes.subarray(-6).toString()).toContain('%%EOF');

    const csv = await download(`/settlements/${issued.id}/statement.csv`, K);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="statement-TEST-PTS-000001.csv"');
    const st = statement(csv.bytes);
    expect(st.head).toMatchObject({
      InvoiceNumber: 'TEST-PTS-000001',
      InvoiceDate: today,
      DueDate: issued.due_date,
      Currency: 'MAD',
      TotalAmountDue: money(expected).amount,
      PeriodStart: periodStart(running),
    });
    expect(st.rows.reduce((n, r) => n + cents(r.amount), 0)).toBe(expected);
    const row = (b: { booking_number: string }) => st.rows.find((r) => r.booking === b.booking_number)!;
    expect(row(kept)).toMatchObject({ status: 'CONFIRMED', amount: kept.net_amount.amount, reference: kept.partner_reference, confirmed: today });
    expect(row(feeAll)).toMatchObject({ status: 'CANCELLED', amount: feeAll.net_amount.amount });
    expect(row(feeHalf)).toMatchObject({ status: 'CANCELLED', amount: c2.body.cancellation.fee_amount.amount });
    expect(row(serviceCancelled)).toMatchObject({ status: 'CANCELLED', amount: '0.00' });
    expect(row(completed)).toMatchObject({ status: 'COMPLETED' });

    // A month closed early stays closed: a booking made now goes to next month's DRAFT.
    const late = await book(K, jwk, generic, addDays(today, 24));
    // A cancellation after the issue is next month's negative adjustment; the issued settlement never changes.
    const c3 = await write('POST', `/test-helpers/bookings/${laterCancelled.booking_number}/service-cancel`, K);
    expect(c3.status).toBe(200);
    const list = await settlements(K);
    expect(list.map((s) => [s.period_start, s.status])).toEqual([
      [periodStart(next), 'DRAFT'],
      [periodStart(running), 'ISSUED'],
    ]);
    expect(list[1]).toMatchObject({ total_due: money(expected), line_count: 6 });
    expect(list[0]).toMatchObject({
      total_due: money(cents(late.net_amount.amount) - cents(laterCancelled.net_amount.amount)),
      booking_count: 1,
      line_count: 2,
    });
    expect((await settlements(K, '?status=ISSUED,PAID')).map((s) => s.id)).toEqual([issued.id]);
    expect((await settlements(K, `?period_to=${running}`)).map((s) => s.id)).toEqual([issued.id]);
    expect((await settlements(K, `?period_from=${next}&status=DRAFT`)).map((s) => s.id)).toEqual([list[0].id]);
    const paged = await api('GET', '/settlements?limit=1', { key: K });
    expect(paged.body.data.map((s: { id: string }) => s.id)).toEqual([list[0].id]);
    expect((await api('GET', `/settlements?limit=1&cursor=${encodeURIComponent(paged.body.meta.next_cursor)}`, { key: K })).body.data[0].id).toBe(issued.id);

    const second = (await write('POST', '/test-helpers/settlements/run', K)).body.data;
    expect(second.map((s: { number: string }) => s.number)).toEqual(['TEST-PTS-000002']);
    const adj = statement((await download(`/settlements/${second[0].id}/statement.csv`, K)).bytes);
    expect(adj.rows.find((r) => r.booking === laterCancelled.booking_number)).toMatchObject({
      status: 'ADJUSTMENT',
      amount: `-${laterCancelled.net_amount.amount}`,
    });
    expect(adj.rows.find((r) => r.booking === late.booking_number)).toMatchObject({ status: 'CONFIRMED' });
    expect(statement((await download(`/settlements/${issued.id}/statement.csv`, K)).bytes)).toEqual(st);

    // PAID, once.
    const paid = await write('POST', `/test-helpers/settlements/${issued.id}/pay`, K, { transfer_reference: 'VIR-TEST-1' });
    expect(paid.body).toMatchObject({ status: 'PAID', transfer_reference: 'VIR-TEST-1' });
    expect(paid.body.paid_at).toBeTruthy();
    const again = await write('POST', `/test-helpers/settlements/${issued.id}/pay`, K);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'settlement.transition.invalid', details: { status: 'PAID' } });

    // The events reached the receiver, marked as tests.
    const events = await until(
      () => received.filter((e) => [issued.id, second[0].id].includes(e.data.settlement_id as string)),
      (v) => v.length >= 3,
    );
    expect(events.map((e) => [e.type, e.data.settlement_id, e.test]).sort()).toEqual(
      [
        ['settlement.issued', issued.id, true],
        ['settlement.issued', second[0].id, true],
        ['settlement.paid', issued.id, true],
      ].sort(),
    );
    expect(events.find((e) => e.type === 'settlement.issued' && e.data.settlement_id === issued.id)!.data).toMatchObject({
      number: 'TEST-PTS-000001',
      total_due: money(expected),
    });
  });

  it('refuses to close a period that has not started', async () => {
    const p = await newPartner();
    const r = await write('POST', '/test-helpers/settlements/run', p.test_key, { period: nextPeriod(next) });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('settlement.period.not_closable');
    // Past the booking horizon too: still a month the run cannot close, as the guides say, not a 400.
    const far = await write('POST', '/test-helpers/settlements/run', p.test_key, { period: '2099-01' });
    expect([far.status, far.body.code, far.body.details?.latest_closable_period]).toEqual([422, 'settlement.period.not_closable', running]);
    expect((await write('POST', '/test-helpers/settlements/run', p.test_key, { period: '2026-13' })).status).toBe(400);
  });
});

describe('who sees what', () => {
  it('a live key never sees a sandbox settlement, another partner sees nothing, a DEVELOPER gets 403, live keys get 404 from test helpers', async () => {
    const p = await newPartner();
    const jwk = await sandboxPaymentKey(p.partner_id);
    await book(p.test_key, jwk, await pack(p.test_key, 'marrakech-medina-and-souks-guided-walking-tour'), addDays(today, 25));
    const [s] = await settlements(p.test_key);
    expect(s.test_mode).toBe(true);
    expect(await settlements(p.live_key)).toEqual([]);
    expect((await api('GET', `/settlements/${s.id}`, { key: p.live_key })).status).toBe(404);
    const other = await newPartner();
    expect(await settlements(other.test_key)).toEqual([]);
    expect((await api('GET', `/settlements/${s.id}`, { key: other.test_key })).body.code).toBe('resource.not_found');
    expect((await download(`/settlements/${s.id}/invoice.pdf`, other.test_key)).status).toBe(404);

    const dev = await memberWithRole('DEVELOPER', p);
    const denied = await api('GET', '/settlements', { key: dev.testKey });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'auth.scope.insufficient', details: { required_scope: 'settlements:read' } });
    expect((await write('POST', '/test-helpers/settlements/run', dev.testKey)).status).toBe(403);
    const finance = await memberWithRole('FINANCE', p);
    expect((await settlements(finance.testKey)).map((x) => x.id)).toEqual([s.id]);
    const viewer = await memberWithRole('VIEWER', p);
    expect((await api('GET', `/settlements/${s.id}`, { key: viewer.testKey })).status).toBe(200);

    for (const [method, path] of [
      ['POST', '/test-helpers/settlements/run'],
      ['POST', `/test-helpers/settlements/${s.id}/pay`],
      ['POST', '/test-helpers/bookings/PTB-0000-0000/complete'],
      ['POST', '/test-helpers/bookings/PTB-0000-0000/service-cancel'],
    ] as const) {
      const r = await write(method, path, p.live_key);
      expect(r.status, path).toBe(404);
      expect(r.body.code, path).toBe('request.route.not_found');
    }
    expect((await api('GET', '/settlements', { key: p.test_key })).body.data[0].status).toBe('DRAFT');
  });

  it('lists the test helpers under their own tag, marked sandbox-only, in the OpenAPI document', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    const run = doc.paths['/test-helpers/settlements/run'].post;
    expect(run.tags).toEqual(['Test helpers']);
    expect(run['x-sandbox-only']).toBe(true);
    expect(doc.tags.map((t: { name: string }) => t.name)).toContain('Test helpers');
    expect(doc.paths['/settlements/{id}/invoice.pdf'].get.responses['200'].content['application/pdf']).toBeDefined();
  });
});

describe('live settlements through the admin CLI', () => {
  it('book, DRAFT, the job through the queue, ISSUED with a live number, PDF and CSV, PAID only for the exact amount', async () => {
    const p = await newPartner();
    const legal = await admin([
      'partner:set-legal',
      '--partner',
      p.partner_id,
      '--legal-name',
      'البنك المغربي للتجارة SA',
      '--address',
      'Avenue Hassan II, Rabat',
      '--ice',
      '002345678000012',
      '--json',
    ]);
    expect(legal.json).toMatchObject({ legal_name: 'البنك المغربي للتجارة SA', legal_ice: '002345678000012' });
    const jwk = await livePaymentKey(p.partner_id);
    const generic = await pack(p.live_key, 'marrakech-medina-and-souks-guided-walking-tour');
    const a = await book(p.live_key, jwk, generic, addDays(today, 47));
    const b = await book(p.live_key, jwk, generic, addDays(today, 47));
    expect((await admin(['booking:cancel', '--booking', b.booking_number, '--json'])).code).toBe(0);
    // A sandbox booking of the same partner never enters the live settlement.
    await book(p.test_key, await sandboxPaymentKey(p.partner_id), generic, addDays(today, 47));

    const date = periodStart(next);
    const refused = await admin(['settlement:run', '--date', date, '--partner', p.partner_id, '--json']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--early');
    const queued = await admin(['settlement:run', '--date', date, '--early', '--queue', '--partner', p.partner_id, '--env', 'live', '--json']);
    expect(queued.json).toEqual({ through_period: running, enqueued: 1 });
    const [s] = await until(
      () => settlements(p.live_key),
      (v) => v[0]?.links.invoice_pdf !== null && v[0]?.status === 'ISSUED',
    );
    expect(s).toMatchObject({ status: 'ISSUED', test_mode: false, total_due: a.net_amount, booking_count: 2, line_count: 2 });
    expect(s.number).toMatch(/^PTS-\d{6}$/);
    expect((await settlements(p.test_key))[0]).toMatchObject({ status: 'DRAFT', number: null, booking_count: 1 });

    const pdf = await download(`/settlements/${s.id}/invoice.pdf`, p.live_key);
    expect(pdf.status).toBe(200);
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const st = statement((await download(`/settlements/${s.id}/statement.csv`, p.live_key)).bytes);
    expect(st.head).toMatchObject({ InvoiceNumber: s.number, Partner: 'البنك المغربي للتجارة SA', TotalAmountDue: a.net_amount.amount });
    expect(st.rows.map((r) => [r.booking, r.status, r.amount]).sort()).toEqual(
      [
        [a.booking_number, 'CONFIRMED', a.net_amount.amount],
        [b.booking_number, 'CANCELLED', '0.00'],
      ].sort(),
    );

    // The job again, in this process this time: nothing more to issue.
    const rerun = await admin(['settlement:run', '--date', date, '--early', '--partner', p.partner_id, '--env', 'live', '--json']);
    expect(rerun.json).toMatchObject({ through_period: running, issued: 0, failed: 0 });
    expect(rerun.stderr).toContain(`${p.partner_id} live: nothing to issue`);

    const wrong = await admin(['settlement:pay', '--settlement', s.id, '--reference', 'VIR-1', '--amount', '1.00', '--json']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`differs from the total due of settlement ${s.number}, ${a.net_amount.amount} MAD`);
    expect((await settlements(p.live_key))[0].status).toBe('ISSUED');
    const paid = await admin(['settlement:pay', '--settlement', s.id, '--reference', 'VIR-2026-77', '--amount', a.net_amount.amount, '--json']);
    expect(paid.json).toMatchObject({ id: s.id, status: 'PAID', transfer_reference: 'VIR-2026-77' });
    const twice = await admin(['settlement:pay', '--settlement', s.id, '--reference', 'VIR-2026-78', '--amount', a.net_amount.amount, '--json']);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('already PAID');
    expect((await api('GET', `/settlements/${s.id}`, { key: p.live_key })).body).toMatchObject({ status: 'PAID', transfer_reference: 'VIR-2026-77' });
  }, 120_000);
});

describe('the monthly job at scale', () => {
  it('run twice at once over 20 partners with a DRAFT of last month: one number each, no gap in the live series, nothing issued twice', async () => {
    // Stage last month's DRAFTs directly (no booking can be confirmed in the past), with the same ledger items a booking writes.
    const { ddb, accessTable, dataTable } = testDb();
    const client = ddb as unknown as DynamoDBDocumentClient;
    const access = makeAccessStore({ client, name: () => accessTable });
    const store = makeSettlementStore({ client, name: () => dataTable });
    const last = previousPeriod(running);
    const at = new Date(`${periodStart(last)}T12:00:00Z`);
    const partners: string[] = [];
    for (let i = 0; i < 20; i++) {
      const { partner } = await access.createPartner({ name: `Scale Bank ${i}` });
      partners.push(partner.partner_id);
      const amount = 10_000 + i;
      await store.open(partner.partner_id, 'live', last, randomUUID(), at);
      const items = {
        line: store.addLine(partner.partner_id, 'live', last, {
          kind: 'BOOKING',
          booking_number: `PTB-SC${String(i).padStart(2, '0')}-${randomUUID().slice(0, 4).toUpperCase()}`,
          partner_reference: `SCALE-${i}`,
          travel_date: periodStart(running),
          confirmed_at: at.toISOString(),
          adventure: 'Scale test',
          status: 'CONFIRMED',
          amount_minor: amount,
          charged_minor: amount,
          refund_minor: 0,
          updated_at: at.toISOString(),
        }),
      };
      expect(await transact(client, items)).toBeUndefined();
    }
    // Two operators' processes at once.
    const runs = await Promise.all([adminProcess(['settlement:run', '--json']), adminProcess(['settlement:run', '--json'])]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const mine = runs.flatMap((r) => (r.json.tenants as any[]).filter((t) => partners.includes(t.partner_id) && t.env === 'live'));
    const issuedByRuns = mine.flatMap((t) => t.settlements);
    // Each of the 20 was issued by exactly one of the two runs.
    expect(issuedByRuns).toHaveLength(20);
    expect(new Set(issuedByRuns.map((s: any) => s.id)).size).toBe(20);
    const numbers: string[] = [];
    for (const p of partners) {
      const [s] = await store.allForTenant(p, 'live');
      expect(s).toMatchObject({ status: 'ISSUED', documents_status: 'READY', period: last });
      numbers.push(s!.number!);
    }
    expect(new Set(numbers).size).toBe(20);
    // The live register has every number from 1 to the counter, once, each for one settlement.
    const register = (await admin(['settlement:register', '--json'])).json.data as { seq: number; number: string; settlement_id: string }[];
    expect(register.map((r) => r.seq)).toEqual(register.map((_, i) => i + 1));
    expect(new Set(register.map((r) => r.settlement_id)).size).toBe(register.length);
    for (const n of numbers) expect(register.filter((r) => r.number === n)).toHaveLength(1);
    expect(await store.lastNumber('live', '')).toBe(register.length);

    // A third run issues nothing.
    const third = await admin(['settlement:run', '--json']);
    expect((third.json.tenants as any[]).filter((t) => partners.includes(t.partner_id)).flatMap((t) => t.settlements)).toEqual([]);
  }, 180_000);
});
