import { describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import { bookingBody, packs, paidClaims, quoteFor, sandboxPaymentKey, signPayment } from './booking-helpers';
import { api, newPartner, write } from './helpers';

type Partner = Awaited<ReturnType<typeof newPartner>>;
interface Ev {
  id: string;
  type: string;
  created_at: string;
  test: boolean;
  data: Record<string, unknown>;
}

let P: Awaited<ReturnType<typeof packs>>;
async function book(p: Partner) {
  P ??= await packs(p.test_key);
  const q = await quoteFor(p.test_key, P.FLEXIBLE, addDays(localDate(new Date()), 9));
  const r = await write('POST', '/bookings', p.test_key, bookingBody(q, await signPayment(await sandboxPaymentKey(p.partner_id), paidClaims(q))));
  expect(r.status, r.text).toBe(201);
  return r.body as { booking_number: string };
}

async function allPages(key: string, query: string, between?: () => Promise<unknown>) {
  const seen: Ev[] = [];
  let cursor: string | null = null;
  do {
    const path: string = `/events?limit=2${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const r = await api<{ data: Ev[]; meta: { next_cursor: string | null } }>('GET', path, { key });
    expect(r.status, r.text).toBe(200);
    seen.push(...r.body.data);
    cursor = r.body.meta.next_cursor;
    await between?.();
  } while (cursor);
  return seen;
}

describe('GET /v1/events', () => {
  it('lists the events newest first, filters by type and created_at, and answers each by id; test sends are not events', async () => {
    const p = await newPartner();
    const b1 = await book(p);
    const b2 = await book(p);
    expect((await write('POST', `/bookings/${b1.booking_number}/cancel`, p.test_key, {})).status).toBe(200);
    const hook = await write('POST', '/webhooks', p.test_key, { url: 'http://localhost:9/none', event_types: ['booking.confirmed'] });
    await write('POST', `/webhooks/${hook.body.id}/test`, p.test_key);

    const all = (await api('GET', '/events', { key: p.test_key })).body.data as Ev[];
    expect(all.map((e) => `${e.type} ${e.data.booking_number}`)).toEqual([
      `booking.cancelled ${b1.booking_number}`,
      `booking.confirmed ${b2.booking_number}`,
      `booking.confirmed ${b1.booking_number}`,
    ]);
    expect(all.every((e) => e.test === true && Object.keys(e).join() === 'id,type,created_at,test,data')).toBe(true);

    const cancelled = (await api('GET', '/events?type=booking.cancelled', { key: p.test_key })).body.data as Ev[];
    expect(cancelled.map((e) => e.id)).toEqual([all[0]!.id]);
    const both = (await api('GET', '/events?type=booking.cancelled,booking.confirmed', { key: p.test_key })).body.data as Ev[];
    expect(both).toHaveLength(3);
    const since = (await api('GET', `/events?created_from=${all[1]!.created_at}`, { key: p.test_key })).body.data as Ev[];
    expect(since.map((e) => e.id)).toEqual([all[0]!.id, all[1]!.id]);
    const until = (await api('GET', `/events?created_to=${all[1]!.created_at}`, { key: p.test_key })).body.data as Ev[];
    expect(until.map((e) => e.id)).toEqual([all[1]!.id, all[2]!.id]);

    for (const e of all) expect((await api('GET', `/events/${e.id}`, { key: p.test_key })).body).toEqual(e);
    // Scoped to the partner and the environment.
    expect((await api('GET', `/events/${all[0]!.id}`, { key: (await newPartner()).test_key })).status).toBe(404);
    expect((await api('GET', `/events/${all[0]!.id}`, { key: p.live_key })).status).toBe(404);
    expect((await api('GET', '/events', { key: p.live_key })).body.data).toEqual([]);
    expect((await api('GET', '/events/0192f000-0000-7000-8000-000000000000', { key: p.test_key })).status).toBe(404);
  });

  it('refuses bad filters with a 400 that names the parameter', async () => {
    const p = await newPartner();
    for (const q of ['type=booking.exploded', 'created_from=yesterday', 'created_to=9999-12-31T00:00:00Z', 'limit=0', 'cursor=forged']) {
      const r = await api('GET', `/events?${q}`, { key: p.test_key });
      expect(r.status, q).toBe(400);
      expect(r.body.message, q).toContain(q.split('=')[0]);
    }
    expect((await api('GET', '/events/not-a-uuid', { key: p.test_key })).status).toBe(400);
  });

  it('pages by keyset while events keep arriving: each event that existed before the first page is listed exactly once', async () => {
    const p = await newPartner();
    for (let i = 0; i < 5; i++) await book(p);
    const before = ((await api('GET', '/events?limit=100', { key: p.test_key })).body.data as Ev[]).map((e) => e.id);
    expect(before).toHaveLength(5);
    const arriving: Promise<unknown>[] = [];
    const seen = await allPages(p.test_key, '', async () => {
      arriving.push(book(p));
    });
    await Promise.all(arriving);
    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size, 'no event twice').toBe(ids.length);
    expect(
      before.every((id) => ids.includes(id)),
      'every earlier event listed',
    ).toBe(true);
    const times = seen.map((e) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
  });
});
