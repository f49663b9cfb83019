import { readFileSync } from 'node:fs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { bookingKeys } from '../../shared/bookings/keys';
import { sandboxBooking } from './console-helpers';
import { api, newPartner, testDb, write } from './helpers';

const cents = (amount: string) => Math.round(Number(amount) * 100);

/** The catalog the local stack imported, as its file has it. */
const catalog = JSON.parse(readFileSync('data/catalog/production.json', 'utf8')) as {
  adventures: { id: string; slug: string; title: string; agency: { id: string; name: string } }[];
};

describe('what the console looks up: bookings by partner_reference with their titles, a settlement with its lines and payment instructions', () => {
  it('GET /bookings?partner_reference= answers the one booking of that reference, with the filters it is combined with, never another partner’s', async () => {
    const p = await newPartner();
    const q = await newPartner();
    const b1 = await sandboxBooking(p);
    await sandboxBooking(p);
    const detail = (await api('GET', `/bookings/${b1.booking_number}`, { key: p.test_key })).body;

    const hit = await api('GET', `/bookings?partner_reference=${encodeURIComponent(b1.partner_reference)}`, { key: p.test_key });
    expect(hit.status, hit.text).toBe(200);
    expect(hit.body.data.map((b: { booking_number: string }) => b.booking_number)).toEqual([b1.booking_number]);
    expect(hit.body.data[0]).toMatchObject({ adventure_slug: detail.adventure.slug, adventure_title: detail.adventure.title });
    expect(hit.body.meta.next_cursor).toBeNull();

    const none = async (query: string, key = p.test_key) => (await api('GET', `/bookings?${query}`, { key })).body.data;
    expect(await none(`partner_reference=${encodeURIComponent(b1.partner_reference)}&status=CANCELLED`)).toEqual([]);
    expect(await none(`partner_reference=${encodeURIComponent(b1.partner_reference)}&created_to=2020-01-01T00:00:00Z`)).toEqual([]);
    expect(await none(`partner_reference=${encodeURIComponent(b1.partner_reference)}&customer_reference=someone-else`)).toEqual([]);
    expect(await none('partner_reference=REF-no-such-reference')).toEqual([]);
    // Another partner, the same reference: nothing (and the booking itself is a 404 to it).
    expect(await none(`partner_reference=${encodeURIComponent(b1.partner_reference)}`, q.test_key)).toEqual([]);
    expect((await api('GET', `/bookings/${b1.booking_number}`, { key: q.test_key })).status).toBe(404);
    // The live environment of the same partner does not see the sandbox booking either.
    expect(await none(`partner_reference=${encodeURIComponent(b1.partner_reference)}`, p.live_key)).toEqual([]);
    const long = await api('GET', `/bookings?partner_reference=${'x'.repeat(65)}`, { key: p.test_key });
    expect(long.status).toBe(400);
    expect(long.body.code).toBe('validation.field.invalid');
  }, 120_000);

  it('the list shows each booking’s adventure title, also for a list row written before rows carried it', async () => {
    const p = await newPartner();
    const b = await sandboxBooking(p);
    const title = (await api('GET', `/bookings/${b.booking_number}`, { key: p.test_key })).body.adventure.title as string;
    // A row as written before this change: no adventure_title.
    const { ddb, dataTable } = testDb();
    const row = (await api('GET', '/bookings', { key: p.test_key })).body.data[0];
    await ddb.send(
      new UpdateCommand({
        TableName: dataTable,
        Key: bookingKeys.listRow(p.partner_id, 'test', row.created_at, b.booking_number),
        UpdateExpression: 'REMOVE adventure_title',
        ConditionExpression: 'attribute_exists(adventure_title)',
      }),
    );
    const list = (await api('GET', '/bookings', { key: p.test_key })).body.data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ booking_number: b.booking_number, adventure_title: title });
    expect(title).not.toBe(list[0].adventure_slug);
  }, 120_000);

  it('GET /settlements/{id}/lines pages the statement’s rows (keyset, bound to the settlement), the issued settlement says how to pay it, another partner gets 404', async () => {
    const p = await newPartner();
    const q = await newPartner();
    const booked = [await sandboxBooking(p), await sandboxBooking(p, 21), await sandboxBooking(p, 22)];
    const draft = (await api('GET', '/settlements', { key: p.test_key })).body.data[0];
    expect(draft).toMatchObject({ status: 'DRAFT', line_count: 3, payment_instructions: null });

    const lines = async (id: string, query: string, key = p.test_key) => api('GET', `/settlements/${id}/lines${query}`, { key });
    const first = await lines(draft.id, '?limit=2');
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.meta).toMatchObject({ count: 2, page_size: 2 });
    const second = await lines(draft.id, `?limit=2&cursor=${encodeURIComponent(first.body.meta.next_cursor)}`);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.meta.next_cursor).toBeNull();
    const all = [...first.body.data, ...second.body.data];
    expect(all.map((l) => l.booking_number).sort()).toEqual(booked.map((b) => b.booking_number).sort());
    expect(all[0]).toMatchObject({ kind: 'BOOKING', status: 'CONFIRMED', adjusts: null, refund_amount: { amount: '0.00', currency: 'MAD' } });
    expect(all.find((l) => l.booking_number === booked[0]!.booking_number)!.partner_reference).toBe(booked[0]!.partner_reference);
    expect(all.reduce((s, l) => s + cents(l.amount.amount), 0)).toBe(cents(draft.total_due.amount));

    // Issued: the invoice's payment block, and the same lines.
    const run = await write('POST', '/test-helpers/settlements/run', p.test_key);
    expect(run.status, run.text).toBe(200);
    const issued = (await api('GET', `/settlements/${draft.id}`, { key: p.test_key })).body;
    expect(issued.status).toBe('ISSUED');
    expect(issued.payment_instructions).toMatchObject({
      transfer_expected: false,
      amount: issued.total_due,
      due_date: issued.due_date,
      reference: issued.number,
    });
    expect(issued.payment_instructions.rib.replace(/ /g, '')).toMatch(/^\d{24}$/);
    expect(issued.payment_instructions.beneficiary).toEqual(expect.any(String));
    expect((await lines(draft.id, '?limit=100')).body.data).toEqual(all.sort((a, b) => (a.booking_number < b.booking_number ? -1 : 1)));

    // No cross-tenant read: another partner's key, either environment, and the owner's live key.
    expect((await lines(draft.id, '', q.test_key)).status).toBe(404);
    expect((await lines(draft.id, '', q.live_key)).status).toBe(404);
    expect((await lines(draft.id, '', p.live_key)).status).toBe(404);
    // The owner's cursor is worthless to another partner.
    const stolen = await lines(draft.id, `?cursor=${encodeURIComponent(first.body.meta.next_cursor)}`, q.test_key);
    expect(stolen.status).toBe(400);
    expect(stolen.body.code).toBe('pagination.cursor.invalid');
    // A bad id is a 400 in the spec's shape, an unknown one a 404.
    const bad = await lines('not-an-id', '');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'validation.field.invalid', request_id: expect.any(String) });
    expect((await lines('00000000-0000-4000-8000-000000000000', '')).status).toBe(404);
  }, 180_000);

  it('each review names what it is about: the adventure by title and slug, or the agency by name, for consumer-site and partner reviews', async () => {
    const p = await newPartner();
    const expected = (type: string, id: string) => {
      const a = catalog.adventures.find((x) => (type === 'AGENCY' ? x.agency.id : x.id) === id)!;
      return type === 'AGENCY' ? { reviewable_name: a.agency.name, reviewable_slug: null } : { reviewable_name: a.title, reviewable_slug: a.slug };
    };
    for (const type of ['EXPERIENCE', 'AGENCY']) {
      const page = (await api('GET', `/reviews?reviewable_type=${type}&limit=10`, { key: p.test_key })).body.data;
      expect(page.length, type).toBeGreaterThan(0);
      for (const r of page) expect(r).toMatchObject(expected(r.reviewable_type, r.reviewable_id));
    }

    const b = await sandboxBooking(p);
    expect((await write('POST', `/test-helpers/bookings/${b.booking_number}/complete`, p.test_key)).status).toBe(200);
    const body = { booking_number: b.booking_number, rating: 5, comment: 'A lovely morning with a great guide.' };
    const mine = await write('POST', '/reviews', p.test_key, { ...body, reviewable_type: 'EXPERIENCE' });
    expect(mine.status, mine.text).toBe(201);
    const adventure = catalog.adventures.find((a) => a.id === mine.body.reviewable_id)!;
    expect(mine.body).toMatchObject({ reviewable_name: adventure.title, reviewable_slug: adventure.slug });
    const agency = await write('POST', '/reviews', p.test_key, { ...body, reviewable_type: 'AGENCY' });
    expect(agency.status, agency.text).toBe(201);
    expect(agency.body).toMatchObject({ reviewable_id: adventure.agency.id, reviewable_name: adventure.agency.name, reviewable_slug: null });
    expect((await api('GET', `/reviews/${agency.body.id}`, { key: p.test_key })).body.reviewable_name).toBe(adventure.agency.name);
  }, 120_000);
});
