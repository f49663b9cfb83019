import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import { reviewKeys } from '../../shared/reviews/keys';
import { bookingBody, packs, paidClaims, quoteFor, sandboxPaymentKey, signPayment } from './booking-helpers';
import { admin, api, newPartner, pastIndexLag, testDb, write } from './helpers';
import { until } from './photo-helpers';

type Partner = Awaited<ReturnType<typeof newPartner>>;
type Review = { id: string; created_at: string; moderation_status: string; rating: number; reviewable_type: string };
let a: Partner;
let b: Partner;
let jwkA: JWK;
let pack: { id: string; start_time: string | null; slug: string };

let day = 40;
async function completedBooking() {
  const quote = await quoteFor(a.test_key, pack, addDays(localDate(new Date()), day++));
  const booked = await write('POST', '/bookings', a.test_key, bookingBody(quote, await signPayment(jwkA, paidClaims(quote))));
  expect(booked.status, booked.text).toBe(201);
  const done = await write('POST', `/test-helpers/bookings/${booked.body.booking_number}/complete`, a.test_key);
  expect(done.body.status).toBe('COMPLETED');
  return done.body as { booking_number: string };
}

async function post(booking: { booking_number: string }, reviewable_type: 'EXPERIENCE' | 'AGENCY', rating: number): Promise<Review> {
  const r = await write('POST', '/reviews', a.test_key, {
    booking_number: booking.booking_number,
    reviewable_type,
    rating,
    comment: 'A lovely morning with a great guide.',
  });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

const moderate = async (id: string, action: string) =>
  expect((await write('POST', `/test-helpers/reviews/${id}/moderate`, a.test_key, { action })).status).toBe(200);
const ownIds = async (key: string, query = '') =>
  ((await api('GET', `/reviews?posted_by_you=true${query}`, { key })).body.data as Review[]).map((r) => `${r.id} ${r.moderation_status}`);

beforeAll(async () => {
  [a, b] = await Promise.all([newPartner(), newPartner()]);
  jwkA = await sandboxPaymentKey(a.partner_id);
  pack = (await packs(a.test_key)).SCHEDULED;
});

describe('GET /reviews?posted_by_you=true: the reviews the partner posted', () => {
  it('lists its own reviews newest first at once, HIDDEN ones included and DELETED ones not; with the other filters, paged; no other tenant sees them', async () => {
    const booking = await completedBooking();
    const adventure = await post(booking, 'EXPERIENCE', 5);
    const agency = await post(booking, 'AGENCY', 2);
    await moderate(adventure.id, 'HIDDEN');
    // Strongly consistent: no wait for an index.
    expect(await ownIds(a.test_key)).toEqual([`${agency.id} VISIBLE`, `${adventure.id} HIDDEN`]);
    // The list without the filter leaves the hidden one out once its index catches up (it lags its writes).
    const allIds = async () => ((await api('GET', '/reviews?limit=100', { key: a.test_key })).body.data as Review[]).map((r) => r.id);
    expect(await until(allIds, (ids) => ids.includes(agency.id) && !ids.includes(adventure.id))).not.toContain(adventure.id);

    expect(await ownIds(a.test_key, '&min_rating=4')).toEqual([`${adventure.id} HIDDEN`]);
    expect(await ownIds(a.test_key, '&reviewable_type=AGENCY')).toEqual([`${agency.id} VISIBLE`]);
    expect(await ownIds(a.test_key, `&adventure=${pack.slug}`)).toEqual([`${adventure.id} HIDDEN`]);

    const first = (await api('GET', '/reviews?posted_by_you=true&limit=1', { key: a.test_key })).body;
    expect(first.data.map((r: Review) => r.id)).toEqual([agency.id]);
    expect(first.meta.next_cursor).toEqual(expect.any(String));
    const second = (await api('GET', `/reviews?posted_by_you=true&limit=1&cursor=${encodeURIComponent(first.meta.next_cursor)}`, { key: a.test_key })).body;
    expect(second.data.map((r: Review) => r.id)).toEqual([adventure.id]);
    expect(second.meta.next_cursor ?? null).toBeNull();

    // Another tenant's own list holds none of them; nor does the live environment of the same partner.
    expect(await ownIds(b.test_key)).toEqual([]);
    expect(await ownIds(a.live_key)).toEqual([]);

    await moderate(agency.id, 'DELETED');
    expect(await ownIds(a.test_key)).toEqual([`${adventure.id} HIDDEN`]);
  });

  it('refuses any other value with a 400 that names the parameter', async () => {
    for (const v of ['false', '1', 'TRUE', '']) {
      const r = await api('GET', `/reviews?posted_by_you=${v}`, { key: a.test_key });
      expect(r.status, v).toBe(400);
      expect(r.body.code).toBe('validation.field.invalid');
      expect(r.body.details.errors[0]).toMatchObject({ field: 'posted_by_you', location: 'query' });
    }
  });

  it('data:own-reviews gives reviews posted before the rows theirs, a hidden one included (Queries only), once', async () => {
    const booking = await completedBooking();
    const visible = await post(booking, 'EXPERIENCE', 4);
    const hidden = await post(booking, 'AGENCY', 3);
    await moderate(hidden.id, 'HIDDEN');
    // As before this change: the reviews without their rows.
    const { ddb, dataTable } = testDb();
    for (const r of [visible, hidden]) {
      await ddb.send(new DeleteCommand({ TableName: dataTable, Key: reviewKeys.ownRow(a.partner_id, 'test', r.created_at, r.id) }));
    }
    expect(await ownIds(a.test_key)).not.toContain(`${hidden.id} HIDDEN`);
    await pastIndexLag();
    const run = await admin(['data:own-reviews', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.reviews).toBeGreaterThanOrEqual(2);
    expect(await ownIds(a.test_key)).toEqual(expect.arrayContaining([`${visible.id} VISIBLE`, `${hidden.id} HIDDEN`]));
    expect((await admin(['data:own-reviews', '--json'])).json).toEqual({ reviews: 0 });
  });
});
