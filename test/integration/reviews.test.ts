import { randomUUID } from 'node:crypto';
import type { JWK } from 'jose';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import { bookingBody, packs, paidClaims, quoteFor, sandboxPaymentKey, signPayment } from './booking-helpers';
import { api, memberWithRole, newPartner, type ReceivedEvent, startEventReceiver, write } from './helpers';
import { fileOf, objectExists, PNG, readyPhoto, settled, until, upload } from './photo-helpers';

type Partner = Awaited<ReturnType<typeof newPartner>>;
let a: Partner;
let b: Partner;
let jwkA: JWK;
let pack: { id: string; start_time: string | null; slug: string };
let receiver: Awaited<ReturnType<typeof startEventReceiver>>;
let received: ReceivedEvent[];

let day = 3;
/** A COMPLETED sandbox booking of partner A on the test pack (each on its own date, so seats never run out). */
async function completedBooking(key = a.test_key, jwk = jwkA) {
  const quote = await quoteFor(key, pack, addDays(localDate(new Date()), day++));
  const booked = await write('POST', '/bookings', key, bookingBody(quote, await signPayment(jwk, paidClaims(quote))));
  expect(booked.status, booked.text).toBe(201);
  const done = await write('POST', `/test-helpers/bookings/${booked.body.booking_number}/complete`, key);
  expect(done.body.status).toBe('COMPLETED');
  return done.body as { booking_number: string; partner_reference: string; adventure: { id: string; slug: string } };
}

const review = (booking: { booking_number: string }, extra: Record<string, unknown> = {}) => ({
  booking_number: booking.booking_number,
  reviewable_type: 'EXPERIENCE',
  rating: 4,
  comment: 'A lovely morning with a great guide.',
  ...extra,
});

beforeAll(async () => {
  receiver = await startEventReceiver('/reviews');
  received = receiver.received;
  [a, b] = await Promise.all([newPartner(), newPartner()]);
  jwkA = await sandboxPaymentKey(a.partner_id);
  const found = await packs(a.test_key);
  // The tests review EXPERIENCE adventures: a pack of an adventure shorter than a day.
  pack = found.SCHEDULED;
  const hook = await write('POST', '/webhooks', a.test_key, {
    url: receiver.url,
    event_types: ['review.moderated'],
  });
  expect(hook.status).toBe(201);
});
afterAll(() => receiver.close());

describe('reviews', () => {
  it('the whole path: completed booking, photo upload, post, list, edit, moderate, review.moderated', async () => {
    const detail0 = (await api('GET', `/adventures/${pack.slug}`, { key: a.test_key })).body;
    const booking = await completedBooking();
    const photo = await readyPhoto(a.test_key);
    const file = (await fileOf(a.test_key, photo)).body;
    const served = await fetch(file.url);
    expect(served.status).toBe(200);
    // Re-encoded (test/integration/photos.test.ts): the same 1x1 PNG image, not the same bytes.
    expect(await sharp(Buffer.from(await served.arrayBuffer())).metadata()).toMatchObject({ format: 'png', width: 1, height: 1 });

    const posted = await write('POST', '/reviews', a.test_key, review(booking, { title: 'Great', photo_ids: [photo] }));
    expect(posted.status, posted.text).toBe(201);
    const r = posted.body;
    expect(r).toMatchObject({
      reviewable_type: 'EXPERIENCE',
      reviewable_id: detail0.id,
      rating: 4,
      verified_booking: true,
      helpful_count: 0,
      author_name: 'Amina E.',
    });
    expect(r.photo_urls).toEqual([file.url]);
    expect(r.photo_thumbnail_urls).toEqual([file.thumbnail_url]);
    expect((await fileOf(a.test_key, photo)).body.attached).toBe(true);

    // The reviews list reads an index, which lags its writes (docs/guides/reviews-and-photos.md): wait for it, bounded.
    const listed = await until(
      () => api('GET', `/reviews?adventure=${pack.slug}&limit=5`, { key: a.test_key }),
      (l) => l.body.data[0]?.id === r.id,
    );
    expect(listed.body.data[0].id).toBe(r.id);
    const detail1 = (await api('GET', `/adventures/${pack.slug}`, { key: a.test_key })).body;
    expect(detail1.review_count).toBe(detail0.review_count + 1);

    const edited = await write('PUT', `/reviews/${r.id}`, a.test_key, { rating: 2, title: 'Changed my mind' });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ rating: 2, title: 'Changed my mind', comment: r.comment, photo_urls: [file.url] });

    const hidden = await write('POST', `/test-helpers/reviews/${r.id}/moderate`, a.test_key, { action: 'HIDDEN' });
    expect(hidden.body.moderation_status).toBe('HIDDEN');
    const event = await until(
      async () => received.find((e) => e.type === 'review.moderated' && e.data.review_id === r.id),
      (e) => e !== undefined,
    );
    expect(event!.test).toBe(true);
    expect(Object.keys(event!.data).sort()).toEqual(
      ['action', 'booking_id', 'booking_number', 'moderated_at', 'partner_reference', 'review_id', 'reviewable_id', 'reviewable_type'].sort(),
    );
    expect(event!.data).toMatchObject({
      action: 'HIDDEN',
      booking_number: booking.booking_number,
      partner_reference: booking.partner_reference,
      reviewable_type: 'EXPERIENCE',
      reviewable_id: detail0.id,
    });
    // Hidden: out of the list and the aggregates, still readable by its owner, and editable (it stays hidden).
    const listedIds = async () =>
      (await api('GET', `/reviews?adventure=${pack.slug}`, { key: a.test_key })).body.data.map((x: { id: string }) => x.id) as string[];
    expect(await until(listedIds, (ids) => !ids.includes(r.id))).not.toContain(r.id);
    expect((await api('GET', `/adventures/${pack.slug}`, { key: a.test_key })).body.review_count).toBe(detail0.review_count);
    expect((await api('GET', `/reviews/${r.id}`, { key: a.test_key })).body.moderation_status).toBe('HIDDEN');
    expect((await api('GET', `/reviews/${r.id}`, { key: b.test_key })).status).toBe(404);
    const hiddenEdit = await write('PUT', `/reviews/${r.id}`, a.test_key, { rating: 3 });
    expect(hiddenEdit.body).toMatchObject({ rating: 3, moderation_status: 'HIDDEN' });
    expect((await api('GET', `/adventures/${pack.slug}`, { key: a.test_key })).body.review_count).toBe(detail0.review_count);

    expect((await write('POST', `/test-helpers/reviews/${r.id}/moderate`, a.test_key, { action: 'HIDDEN' })).body.code).toBe('review.moderation.invalid');
    expect((await write('POST', `/test-helpers/reviews/${r.id}/moderate`, a.test_key, { action: 'RESTORED' })).body.moderation_status).toBe('VISIBLE');
    expect((await api('GET', `/adventures/${pack.slug}`, { key: a.test_key })).body.review_count).toBe(detail0.review_count + 1);

    // The agency's reply (an operator command), then deletion by the operators: gone, with its event.
    const { admin } = await import('./helpers');
    expect((await admin(['review:reply', '--review', r.id, '--text', 'Thank you for visiting!', '--json'])).code).toBe(0);
    const replied = (await api('GET', `/reviews/${r.id}`, { key: b.test_key })).body;
    expect(replied.id).toBeUndefined(); // another sandbox tenant never sees A's sandbox reviews
    const own = (await api('GET', `/reviews/${r.id}`, { key: a.test_key })).body;
    expect(own.agency_reply).toBe('Thank you for visiting!');
    expect(own.agency_replied_at).toMatch(/Z$/);
    const del = await admin(['review:moderate', '--review', r.id, '--action', 'DELETED', '--json']);
    expect(del.json.status).toBe('DELETED');
    expect((await api('GET', `/reviews/${r.id}`, { key: a.test_key })).status).toBe(404);
    expect((await write('PUT', `/reviews/${r.id}`, a.test_key, { rating: 5 })).status).toBe(404);
    expect((await api('GET', `/adventures/${pack.slug}`, { key: a.test_key })).body.review_count).toBe(detail0.review_count);
    const actions = await until(
      async () => received.filter((e) => e.data.review_id === r.id).map((e) => e.data.action),
      (x) => x.length >= 3,
    );
    expect(actions.sort()).toEqual(['DELETED', 'HIDDEN', 'RESTORED']);
  });

  it('rejects a text file declared as image/png and deletes its object; refuses it as a photo', async () => {
    const id = await upload(a.test_key, Buffer.from('this is not an image at all, just text\n'.repeat(4)));
    const f = await settled(a.test_key, id);
    expect(f.body).toMatchObject({ status: 'REJECTED', rejection_reason: 'unrecognized_type', url: null });
    expect(await objectExists(`pending/${id}`)).toBe(false);
    expect(await objectExists(`photos/${id}.png`)).toBe(false);
    const booking = await completedBooking();
    const r = await write('POST', '/reviews', a.test_key, review(booking, { photo_ids: [id] }));
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'review.photo.not_ready', details: { file_id: id, status: 'REJECTED' } });
  }, 30_000);

  it('refuses every limit with a typed 4xx naming the field or the file', async () => {
    const field = (r: { body: { details?: { errors?: { field: string }[] } } }) => r.body.details?.errors?.map((e) => e.field);
    // Files: type and size.
    const gif = await write('POST', '/files', a.test_key, { purpose: 'review_photo', content_type: 'image/gif', size_bytes: 10 });
    expect([gif.status, field(gif)]).toEqual([400, ['content_type']]);
    const big = await write('POST', '/files', a.test_key, { purpose: 'review_photo', content_type: 'image/png', size_bytes: 5 * 1024 * 1024 + 1 });
    expect([big.status, field(big)]).toEqual([400, ['size_bytes']]);
    expect((await fileOf(b.test_key, await upload(a.test_key, PNG))).status).toBe(404);

    const booking = await completedBooking();
    for (const [body, f] of [
      [{ rating: 6 }, 'rating'],
      [{ rating: 0 }, 'rating'],
      [{ rating: 4.5 }, 'rating'],
      [{ title: 'x'.repeat(201) }, 'title'],
      [{ comment: 'too short' }, 'comment'],
      [{ comment: 'x'.repeat(4001) }, 'comment'],
      [{ photo_ids: Array.from({ length: 11 }, () => randomUUID()) }, 'photo_ids'],
    ] as const) {
      const r = await write('POST', '/reviews', a.test_key, review(booking, body));
      expect([r.status, field(r)], JSON.stringify(body)).toEqual([400, [f]]);
    }
    // Bookings: unknown, another partner's, not completed; reviewable mismatch.
    expect((await write('POST', '/reviews', a.test_key, review({ booking_number: 'PTB-0000-0000' }))).body.code).toBe('review.booking.not_found');
    expect((await write('POST', '/reviews', b.test_key, review(booking))).status).toBe(404);
    expect((await write('POST', '/reviews', a.live_key, review(booking))).status).toBe(404);
    const quote = await quoteFor(a.test_key, pack, addDays(localDate(new Date()), day++));
    const confirmed = (await write('POST', '/bookings', a.test_key, bookingBody(quote, await signPayment(jwkA, paidClaims(quote))))).body;
    const notDone = await write('POST', '/reviews', a.test_key, review(confirmed));
    expect([notDone.status, notDone.body.code]).toEqual([409, 'review.booking.not_completed']);
    const trip = await write('POST', '/reviews', a.test_key, review(booking, { reviewable_type: 'TRIP' }));
    expect([trip.status, trip.body.code, field(trip)]).toEqual([422, 'review.reviewable.mismatch', ['reviewable_type']]);
    expect(trip.body.message).toBe('The booked adventure is an experience: review it as reviewable_type EXPERIENCE (or AGENCY).');
    const wrongId = await write('POST', '/reviews', a.test_key, review(booking, { reviewable_id: randomUUID() }));
    expect([wrongId.status, field(wrongId)]).toEqual([422, ['reviewable_id']]);
    // Photos: unknown, another partner's.
    const ghost = randomUUID();
    const unknown = await write('POST', '/reviews', a.test_key, review(booking, { photo_ids: [ghost] }));
    expect([unknown.status, unknown.body.code, unknown.body.details.file_id]).toEqual([422, 'review.photo.not_found', ghost]);
    const foreign = await readyPhoto(b.test_key);
    expect((await write('POST', '/reviews', a.test_key, review(booking, { photo_ids: [foreign] }))).body.details.file_id).toBe(foreign);

    // One review per booking and reviewable; the agency is another reviewable.
    const ten = await Promise.all(Array.from({ length: 10 }, () => readyPhoto(a.test_key)));
    const first = await write('POST', '/reviews', a.test_key, review(booking, { photo_ids: ten.slice(0, 9) }));
    expect(first.status, first.text).toBe(201);
    expect((await write('POST', '/reviews', a.test_key, review(booking))).body.code).toBe('review.already_exists');
    const agency = await write('POST', '/reviews', a.test_key, review(booking, { reviewable_type: 'AGENCY' }));
    expect(agency.status).toBe(201);
    // A photo already attached elsewhere.
    const taken = await write('PUT', `/reviews/${agency.body.id}`, a.test_key, { photo_ids: [ten[0]] });
    expect([taken.status, taken.body.code, taken.body.details.file_id]).toEqual([409, 'review.photo.in_use', ten[0]]);

    // PUT: the spec's limits, the 10th photo taken, the 11th refused; only the owner.
    const id = first.body.id;
    for (const [body, f] of [
      [{ rating: 6 }, 'rating'],
      [{ title: 'x'.repeat(201) }, 'title'],
      [{ comment: 'short' }, 'comment'],
      [{ photo_ids: [...ten, randomUUID()] }, 'photo_ids'],
    ] as const) {
      const r = await write('PUT', `/reviews/${id}`, a.test_key, body);
      expect([r.status, field(r)], JSON.stringify(body)).toEqual([400, [f]]);
    }
    const tenth = await write('PUT', `/reviews/${id}`, a.test_key, { photo_ids: ten });
    expect(tenth.body.photo_urls).toHaveLength(10);
    const fewer = await write('PUT', `/reviews/${id}`, a.test_key, { photo_ids: ten.slice(5) });
    expect(fewer.body.photo_urls).toHaveLength(5);
    expect((await fileOf(a.test_key, ten[0]!)).body.attached).toBe(false);
    expect((await write('PUT', `/reviews/${id}`, b.test_key, { rating: 1 })).status).toBe(404);
    expect((await write('PUT', `/reviews/${id}`, a.live_key, { rating: 1 })).status).toBe(404);
    expect((await write('PUT', `/reviews/${randomUUID()}`, a.test_key, { rating: 1 })).status).toBe(404);
  }, 90_000);

  it('isolates partners and environments; lists the consumer-site reviews with keyset pages', async () => {
    const booking = await completedBooking();
    const mine = (await write('POST', '/reviews', a.test_key, review(booking, { rating: 5 }))).body;
    const ids = async (key: string) =>
      (await api('GET', `/reviews?adventure=${pack.slug}&limit=100`, { key })).body.data.map((x: { id: string }) => x.id) as string[];
    // Once the (lagging) index lists it for its partner, the others' lists are read after it too.
    expect(
      await until(
        () => ids(a.test_key),
        (x) => x.includes(mine.id),
      ),
    ).toContain(mine.id);
    expect(await ids(b.test_key)).not.toContain(mine.id);
    expect(await ids(a.live_key)).not.toContain(mine.id);
    expect((await api('GET', `/reviews/${mine.id}`, { key: a.live_key })).status).toBe(404);
    // Consumer-site reviews: in both environments, the same in every sandbox tenant.
    const consumer = (await ids(b.test_key)).filter((x) => x !== mine.id);
    expect(consumer.length).toBeGreaterThan(0);
    expect(await ids(a.live_key)).toEqual(consumer);

    const all: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { body: { data: { id: string; rating: number; created_at: string }[]; meta: { next_cursor: string | null } } } = await api(
        'GET',
        `/reviews?limit=7&min_rating=4${cursor ? `&cursor=${cursor}` : ''}`,
        { key: a.test_key },
      );
      for (const x of page.body.data) expect(x.rating).toBeGreaterThanOrEqual(4);
      all.push(...page.body.data.map((x) => x.id));
      cursor = page.body.meta.next_cursor;
      pages++;
    } while (cursor && pages < 200);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toContain(mine.id);
    expect(pages).toBeGreaterThan(3);
    const other = await api('GET', `/quotes?cursor=${(await api('GET', '/reviews?limit=1', { key: a.test_key })).body.meta.next_cursor}`, { key: a.test_key });
    expect(other.body.code).toBe('pagination.cursor.wrong_endpoint');
  });

  it('role rules: VIEWER reads but cannot write; DEVELOPER reviews and uploads (the role table gives it reviews and files)', async () => {
    const viewer = await memberWithRole('VIEWER', a);
    expect((await api('GET', '/reviews', { key: viewer.testKey })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/reviews', review({ booking_number: 'PTB-0000-0000' })],
      ['POST', '/files', { purpose: 'review_photo', content_type: 'image/png', size_bytes: 10 }],
      ['PUT', `/reviews/${randomUUID()}`, { rating: 3 }],
    ] as const) {
      const r = await write(method, path, viewer.testKey, body);
      expect([r.status, r.body.code]).toEqual([403, 'auth.scope.insufficient']);
    }
    const finance = await memberWithRole('FINANCE', a);
    expect((await api('GET', '/reviews', { key: finance.testKey })).status).toBe(403);
    const dev = await memberWithRole('DEVELOPER', a);
    const booking = await completedBooking();
    const photo = await readyPhoto(dev.testKey);
    expect((await write('POST', '/reviews', dev.testKey, review(booking, { photo_ids: [photo] }))).status).toBe(201);
  });

  it('keeps the rating aggregates exact under 20 concurrent creates on one adventure', async () => {
    const c = await newPartner();
    const jwk = await sandboxPaymentKey(c.partner_id);
    const bookings = [];
    for (let i = 0; i < 20; i++) bookings.push(await completedBooking(c.test_key, jwk));
    const before = (await api('GET', `/adventures/${pack.slug}`, { key: c.test_key })).body;
    const ratings = bookings.map((_, i) => (i % 5) + 1);
    const created = await Promise.all(bookings.map((bk, i) => write('POST', '/reviews', c.test_key, review(bk, { rating: ratings[i] }))));
    expect(created.map((r) => r.status)).toEqual(Array(20).fill(201));
    const after = (await api('GET', `/adventures/${pack.slug}`, { key: c.test_key })).body;
    expect(after.review_count).toBe(before.review_count + 20);
    // The exact figures, from the visible reviews themselves, once the (lagging) list index shows them all.
    const all = async () => {
      const listed: { rating: number }[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: { data: { rating: number }[]; meta: { next_cursor: string | null } } } = await api(
          'GET',
          `/reviews?adventure=${pack.slug}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
          { key: c.test_key },
        );
        listed.push(...page.body.data);
        cursor = page.body.meta.next_cursor;
      } while (cursor);
      return listed;
    };
    const listed = await until(all, (l) => l.length >= after.review_count);
    expect(listed).toHaveLength(after.review_count);
    const sum = listed.reduce((s, r) => s + r.rating, 0);
    expect(after.rating).toBe(Math.round((sum / listed.length) * 100) / 100);
    const listEntry = (await api('GET', `/adventures?limit=100`, { key: c.test_key })).body.data.find((x: { slug: string }) => x.slug === pack.slug);
    expect([listEntry.rating, listEntry.review_count]).toEqual([after.rating, after.review_count]);
  }, 120_000);
});
