import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventKeys } from '../../shared/events/keys';
import { addDays, isoWeekday, localDate } from '../../shared/kernel/time';
import { quoteKeys } from '../../shared/quotes/keys';
import { bookingBody, livePaymentKey, paidClaims, quoteFor, signPayment } from './booking-helpers';
import { admin, api, newPartner, pastIndexLag, testDb, until, write } from './helpers';

const today = localDate(new Date());
const nextWeekday = (iso: number, after = 2) => {
  let d = addDays(today, after);
  while (isoWeekday(d) !== iso) d = addDays(d, 1);
  return d;
};

// Adventures only this file touches: production changes on them cannot disturb the other suites.
const ids = { weekdayPack: randomUUID(), flexPack: randomUUID(), clockPack: randomUUID(), advA: randomUUID(), advB: randomUUID(), advC: randomUUID() };
const brackets = [
  { code: 'CHILD', label: 'Child', min_age: 6, max_age: 17, price: '120.00' },
  { code: 'ADULT', label: 'Adult', min_age: 18, max_age: 75, price: '300.00' },
];
const policy = {
  code: 'FULL_REFUND_24H',
  description: 'Full refund up to 24 h before',
  rules: [
    { hours_before: 24, refund_percent: 100 },
    { hours_before: 0, refund_percent: 0 },
  ],
};
const testville = (id: string, slug: string, packs: unknown[]) => ({
  id,
  slug,
  title: `Testville ${slug}`,
  summary: 'A fixture adventure.',
  description: 'Used by the quote tests only.',
  agency: { id: '0b7a9c58-2a64-4a4c-9f43-6f2d0e1c7a11', name: 'Fixture Agency' },
  city: 'Testville',
  location: { lat: 30.0, lng: -9.0 },
  category: 'NATURE',
  duration_minutes: 120,
  images: ['https://images.example-cdn.ma/adventures/fixture/1.jpg'],
  rating: 4.2,
  review_count: 10,
  popularity: 1,
  active: true,
  rate_packs: packs,
});

beforeAll(async () => {
  const seed = JSON.parse(readFileSync(resolve(import.meta.dirname, '..', '..', 'data', 'catalog', 'production.json'), 'utf8'));
  seed.adventures.push(
    testville(ids.advA, `testville-weekday-walk-${ids.advA.slice(0, 6)}`, [
      {
        id: ids.weekdayPack,
        name: 'Weekday walk',
        booking_mode: 'SCHEDULED',
        age_brackets: brackets,
        min_travelers: 1,
        max_travelers: 5,
        cancellation_policy: policy,
        schedule: { weekdays: [1, 2, 3, 4, 5], start_times: ['10:00', '15:00'], capacity_per_departure: 3 },
      },
    ]),
    testville(ids.advB, `testville-day-pass-${ids.advB.slice(0, 6)}`, [
      {
        id: ids.flexPack,
        name: 'Day pass',
        booking_mode: 'FLEXIBLE',
        age_brackets: brackets,
        min_travelers: 2,
        max_travelers: 6,
        cancellation_policy: policy,
        schedule: { weekdays: [1, 2, 3, 4, 5, 6, 7], daily_capacity: 40 },
      },
    ]),
    testville(ids.advC, `testville-clock-pass-${ids.advC.slice(0, 6)}`, [
      {
        id: ids.clockPack,
        name: 'Clock pass',
        booking_mode: 'FLEXIBLE',
        age_brackets: brackets,
        min_travelers: 1,
        max_travelers: 6,
        cancellation_policy: policy,
        schedule: { weekdays: [1, 2, 3, 4, 5, 6, 7], daily_capacity: 40 },
      },
    ]),
  );
  const file = join(mkdtempSync(join(tmpdir(), 'cat-')), 'catalog.json');
  writeFileSync(file, JSON.stringify(seed));
  const imported = await admin(['catalog:import', file, '--json']);
  expect(imported.code, imported.stderr).toBe(0);
  expect(imported.json.adventures).toBe(seed.adventures.length);
  // Bring the fixtures into every sandbox too.
  const refreshed = await admin(['catalog:refresh-sandbox', '--json']);
  expect(refreshed.code, refreshed.stderr).toBe(0);
  expect(refreshed.stderr).toMatch(/refreshed \d+\/\d+ tenants/);
});

const quote = (key: string, body: Record<string, unknown>, idempotencyKey?: string) => write('POST', '/quotes', key, body, { idempotencyKey });

describe('POST /v1/quotes', () => {
  it('prices a SCHEDULED departure per traveler with the effective age bracket, in both environments', async () => {
    const p = await newPartner();
    const date = nextWeekday(2);
    for (const key of [p.test_key, p.live_key]) {
      const r = await quote(key, {
        rate_pack_id: ids.weekdayPack,
        start_date: date,
        start_time: '10:00',
        travelers: [{ age: 40 }, { age: 6 }, { birth_date: `${Number(date.slice(0, 4)) - 18}-${date.slice(5)}` }],
      });
      expect(r.status, r.text).toBe(201);
      expect(r.body).toMatchObject({
        rate_pack_id: ids.weekdayPack,
        adventure_id: ids.advA,
        booking_mode: 'SCHEDULED',
        start_date: date,
        start_time: '10:00',
        net_amount: { amount: '720.00', currency: 'MAD' },
        expired: false,
        test_mode: key === p.test_key,
      });
      expect(r.body.travelers.map((t: { age_bracket: { code: string } }) => t.age_bracket.code)).toEqual(['ADULT', 'CHILD', 'ADULT']);
      expect(r.body.travelers[2].age).toBe(18); // age on the travel date, bounds inclusive
      expect(Date.parse(r.body.expires_at) - Date.parse(r.body.created_at)).toBe(30 * 60 * 1000);
      const got = await api('GET', `/quotes/${r.body.id}`, { key });
      expect(got.body).toEqual(r.body);
    }
  });

  it('prices a FLEXIBLE day without a start time', async () => {
    const p = await newPartner();
    const r = await quote(p.test_key, { rate_pack_id: ids.flexPack, start_date: addDays(today, 1), travelers: [{ age: 30 }, { age: 31 }] });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ booking_mode: 'FLEXIBLE', start_time: null, net_amount: { amount: '600.00' } });
    const nul = await quote(p.test_key, { rate_pack_id: ids.flexPack, start_date: addDays(today, 1), start_time: null, travelers: [{ age: 30 }, { age: 31 }] });
    expect(nul.status).toBe(201);
  });

  it('answers each refusal with its own code and details', async () => {
    const p = await newPartner();
    const k = p.test_key;
    const weekday = nextWeekday(3);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ rate_pack_id: randomUUID(), start_date: weekday, start_time: '10:00', travelers: [{ age: 30 }] }, 404, 'quote.rate_pack.not_found'],
      [{ rate_pack_id: ids.weekdayPack, start_date: addDays(today, -1), start_time: '10:00', travelers: [{ age: 30 }] }, 422, 'quote.start_date.in_past'],
      [{ rate_pack_id: ids.weekdayPack, start_date: nextWeekday(7), start_time: '10:00', travelers: [{ age: 30 }] }, 422, 'quote.slot.not_sellable'],
      [{ rate_pack_id: ids.weekdayPack, start_date: addDays(today, 90), start_time: '10:00', travelers: [{ age: 30 }] }, 422, 'quote.slot.not_sellable'],
      [{ rate_pack_id: ids.weekdayPack, start_date: weekday, start_time: '11:00', travelers: [{ age: 30 }] }, 422, 'quote.start_time.invalid'],
      [{ rate_pack_id: ids.weekdayPack, start_date: weekday, travelers: [{ age: 30 }] }, 422, 'quote.start_time.invalid'],
      [{ rate_pack_id: ids.flexPack, start_date: weekday, start_time: '10:00', travelers: [{ age: 30 }, { age: 30 }] }, 422, 'quote.start_time.invalid'],
      [
        { rate_pack_id: ids.weekdayPack, start_date: weekday, start_time: '10:00', travelers: Array.from({ length: 6 }, () => ({ age: 30 })) },
        422,
        'quote.party.too_large',
      ],
      [{ rate_pack_id: ids.flexPack, start_date: weekday, travelers: [{ age: 30 }] }, 422, 'quote.party.too_small'],
      [
        { rate_pack_id: ids.weekdayPack, start_date: weekday, start_time: '10:00', travelers: [{ age: 30 }, { age: 3 }, { age: 80 }] },
        422,
        'quote.traveler.age_out_of_range',
      ],
      [
        { rate_pack_id: ids.weekdayPack, start_date: weekday, start_time: '10:00', travelers: [{ age: 30 }, { age: 30 }, { age: 30 }, { age: 30 }] },
        422,
        'quote.capacity.insufficient',
      ],
      [{ rate_pack_id: ids.weekdayPack, start_date: '2026-13-01', start_time: '10:00', travelers: [{ age: 30 }] }, 400, 'validation.field.invalid'],
      [{ rate_pack_id: ids.weekdayPack, start_date: weekday, start_time: '10:00', travelers: [] }, 400, 'validation.field.invalid'],
    ];
    for (const [body, status, code] of cases) {
      const r = await quote(k, body);
      expect(`${r.status} ${r.body.code}`, JSON.stringify(body)).toBe(`${status} ${code}`);
      expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
    }
    const ages = await quote(k, { rate_pack_id: ids.weekdayPack, start_date: weekday, start_time: '10:00', travelers: [{ age: 30 }, { age: 3 }, { age: 80 }] });
    expect(ages.body.details.travelers).toEqual([
      { index: 1, age: 3 },
      { index: 2, age: 80 },
    ]);
    const notOperating = await quote(k, { rate_pack_id: ids.weekdayPack, start_date: nextWeekday(7), start_time: '10:00', travelers: [{ age: 30 }] });
    expect(notOperating.body.details).toMatchObject({ reason: 'not_operating', weekdays: [1, 2, 3, 4, 5] });
    const room = await quote(k, {
      rate_pack_id: ids.weekdayPack,
      start_date: weekday,
      start_time: '10:00',
      travelers: Array.from({ length: 4 }, () => ({ age: 30 })),
    });
    expect(room.body.details).toEqual({ remaining: 3, requested: 4 });
  });

  it('replays an idempotent quote creation instead of creating a second quote', async () => {
    const p = await newPartner();
    const idem = randomUUID();
    const body = { rate_pack_id: ids.flexPack, start_date: addDays(today, 2), travelers: [{ age: 30 }, { age: 20 }] };
    const a = await quote(p.test_key, body, idem);
    const b = await quote(p.test_key, body, idem);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.id).toBe(a.body.id);
    expect((await api('GET', '/quotes', { key: p.test_key })).body.data).toHaveLength(1);
  });
});

describe('GET /v1/quotes', () => {
  it('lists QuoteSummary items most recent first with keyset paging, scoped to partner and environment', async () => {
    const p = await newPartner();
    const other = await newPartner();
    const created: string[] = [];
    for (let i = 0; i < 5; i++)
      created.push((await quote(p.test_key, { rate_pack_id: ids.flexPack, start_date: addDays(today, 3 + i), travelers: [{ age: 30 }, { age: 30 }] })).body.id);
    const liveQuote = (await quote(p.live_key, { rate_pack_id: ids.flexPack, start_date: addDays(today, 3), travelers: [{ age: 30 }, { age: 30 }] })).body.id;
    const first = await api('GET', '/quotes?limit=2', { key: p.test_key });
    expect(Object.keys(first.body.data[0]).sort()).toEqual([
      'adventure_slug',
      'created_at',
      'expired',
      'expires_at',
      'id',
      'net_amount',
      'rate_pack_id',
      'start_date',
      'start_time',
    ]);
    const seen = [...first.body.data];
    let cursor = first.body.meta.next_cursor;
    while (cursor) {
      const page = await api('GET', `/quotes?limit=2&cursor=${encodeURIComponent(cursor)}`, { key: p.test_key });
      seen.push(...page.body.data);
      cursor = page.body.meta.next_cursor;
    }
    expect(seen.map((q: { id: string }) => q.id)).toEqual([...created].reverse());
    expect((await api('GET', `/quotes/${created[0]}`, { key: p.live_key })).status).toBe(404);
    expect((await api('GET', `/quotes/${liveQuote}`, { key: p.test_key })).status).toBe(404);
    expect((await api('GET', `/quotes/${created[0]}`, { key: other.test_key })).status).toBe(404);
    expect((await api('GET', '/quotes', { key: p.live_key })).body.data.map((q: { id: string }) => q.id)).toEqual([liveQuote]);
  });

  it('lists a quote the moment it is created (the list reads its rows, never an index)', async () => {
    const p = await newPartner();
    const q = (await quote(p.test_key, { rate_pack_id: ids.flexPack, start_date: addDays(today, 5), travelers: [{ age: 30 }, { age: 30 }] })).body;
    expect((await api('GET', '/quotes', { key: p.test_key })).body.data.map((x: { id: string }) => x.id)).toEqual([q.id]);
  });

  it('computes expired against the current time', async () => {
    const p = await newPartner();
    const q = (await quote(p.test_key, { rate_pack_id: ids.flexPack, start_date: addDays(today, 1), travelers: [{ age: 30 }, { age: 30 }] })).body;
    const { ddb, dataTable } = testDb();
    // An aged quote: its record and its list row (expires_at never changes in the service).
    for (const Key of [quoteKeys.quote(q.id), quoteKeys.listRow(p.partner_id, 'test', q.created_at, q.id)]) {
      await ddb.send(
        new UpdateCommand({
          TableName: dataTable,
          Key,
          UpdateExpression: 'SET expires_at = :t',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':t': new Date(Date.now() - 1000).toISOString() },
        }),
      );
    }
    expect((await api('GET', `/quotes/${q.id}`, { key: p.test_key })).body.expired).toBe(true);
    expect((await api('GET', '/quotes', { key: p.test_key })).body.data[0].expired).toBe(true);
  });
});

async function eventsOf(partnerId: string, env: 'live' | 'test') {
  const { ddb, dataTable } = testDb();
  const r = await ddb.send(
    new QueryCommand({ TableName: dataTable, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': eventKeys.partition(partnerId, env) } }),
  );
  return (r.Items ?? []).map((i) => i.event as { type: string; test: boolean; data: Record<string, unknown> });
}

/** A receiver of adventure.unavailable: what each path got. */
const received: { path: string; event: { id: string; type: string; test: boolean; data: Record<string, any> } }[] = [];
let receiver: Server;
let receiverBase: string;
beforeAll(async () => {
  receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', event: JSON.parse(raw) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverBase = `http://localhost:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

/** A partner with an ACTIVE endpoint subscribed to adventure.unavailable in `env`, and what it received. */
async function watcher(env: 'live' | 'test' = 'live', types = ['adventure.unavailable']) {
  const p = await newPartner();
  const path = `/unavailable-${randomUUID().slice(0, 8)}`;
  const key = env === 'live' ? p.live_key : p.test_key;
  const r = await write('POST', '/webhooks', key, { url: `${receiverBase}${path}`, event_types: types });
  expect(r.status, r.text).toBe(201);
  return { ...p, key, endpointId: r.body.id as string, got: () => received.filter((x) => x.path === path).map((x) => x.event) };
}

const eventually = async <T>(fn: () => T, ok: (v: T) => boolean, ms = 20_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
};

describe('sandbox catalog and adventure.unavailable', () => {
  it('closing a production slot refuses new live quotes, leaves the sandbox untouched, and notifies partners holding quotes on it', async () => {
    const p = await watcher('live');
    const date = nextWeekday(4);
    const live = await quote(p.live_key, { rate_pack_id: ids.weekdayPack, start_date: date, start_time: '15:00', travelers: [{ age: 30 }] });
    expect(live.status).toBe(201);
    await pastIndexLag(); // the quotes on a slot and the subscribers are read through indexes
    const closed = await admin(['catalog:close-slot', '--rate-pack', ids.weekdayPack, '--date', date, '--time', '15:00', '--json']);
    // Every live subscriber hears of it (other suites' partners may be subscribed too).
    expect(closed.json).toMatchObject({ closed: true });
    expect(closed.json.events).toBeGreaterThanOrEqual(1);
    const again = await quote(p.live_key, { rate_pack_id: ids.weekdayPack, start_date: date, start_time: '15:00', travelers: [{ age: 30 }] });
    expect(again.body).toMatchObject({ code: 'quote.slot.not_sellable', details: { reason: 'slot_closed' } });
    expect((await quote(p.test_key, { rate_pack_id: ids.weekdayPack, start_date: date, start_time: '15:00', travelers: [{ age: 30 }] })).status).toBe(201);
    const slug = live.body.adventure_slug;
    const avail = await api('GET', `/adventures/${slug}/availability?from=${date}&to=${date}`, { key: p.live_key });
    expect(avail.body.data.map((s: { start_time: string }) => s.start_time)).toEqual(['10:00']);
    const events = await eventsOf(p.partner_id, 'live');
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'adventure.unavailable',
        test: false,
        data: expect.objectContaining({ reason: 'SLOT_CLOSED', rate_pack_id: ids.weekdayPack, date, start_time: '15:00', quote_ids: [live.body.id] }),
      }),
    );
  });

  it('a withdrawn adventure stays bookable in the sandbox until the refresh; sandbox quotes and idempotency keys survive it', async () => {
    const p = await watcher('test');
    const liveWatcher = await watcher('live');
    const idem = randomUUID();
    const body = { rate_pack_id: ids.flexPack, start_date: addDays(today, 2), travelers: [{ age: 30 }, { age: 30 }] };
    const sandboxQuote = await quote(p.test_key, body, idem);
    expect(sandboxQuote.status).toBe(201);

    const slug = sandboxQuote.body.adventure_slug;
    const withdrawn = await admin(['catalog:withdraw', '--slug', slug, '--json']);
    expect(withdrawn.code, withdrawn.stderr).toBe(0);
    // A live subscriber holding no quote hears of it; the sandbox subscriber does not (its catalog has not changed yet).
    const liveGot = await eventually(
      () => liveWatcher.got().filter((e) => e.data.adventure_slug === slug),
      (x) => x.length > 0,
    );
    expect(liveGot).toEqual([
      expect.objectContaining({
        type: 'adventure.unavailable',
        test: false,
        data: {
          adventure_id: ids.advB,
          adventure_slug: slug,
          rate_pack_id: null,
          date: null,
          start_time: null,
          reason: 'WITHDRAWN',
          quote_ids: [],
          quote_count: 0,
        },
      }),
    ]);
    // Withdrawing it again announces nothing twice.
    expect((await admin(['catalog:withdraw', '--slug', slug, '--json'])).json).toMatchObject({ events: 0 });
    // Production stops selling at once (listing caches recheck within 5 s).
    expect((await quote(p.live_key, body)).body).toMatchObject({ code: 'quote.slot.not_sellable', details: { reason: 'adventure_withdrawn' } });
    await new Promise((r) => setTimeout(r, 5200));
    expect((await api('GET', `/adventures/${slug}`, { key: p.live_key })).body.bookable).toBe(false);
    // The sandbox clone is unchanged until the refresh.
    expect((await quote(p.test_key, body)).status).toBe(201);
    expect((await api('GET', `/adventures/${slug}`, { key: p.test_key })).body.bookable).toBe(true);

    const refreshed = await admin(['catalog:refresh-sandbox', '--json']);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.json.events).toBeGreaterThanOrEqual(1);

    expect((await api('GET', `/adventures/${slug}`, { key: p.test_key })).body.bookable).toBe(false);
    expect((await quote(p.test_key, body)).body.details).toMatchObject({ reason: 'adventure_withdrawn' });
    // What the tenant made in the sandbox is still there.
    expect((await api('GET', `/quotes/${sandboxQuote.body.id}`, { key: p.test_key })).status).toBe(200);
    const replay = await quote(p.test_key, body, idem);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(sandboxQuote.body.id);

    const events = await eventsOf(p.partner_id, 'test');
    const unavailable = events.filter((e) => e.type === 'adventure.unavailable' && e.data.adventure_slug === slug);
    expect(unavailable).toHaveLength(1);
    expect(unavailable[0]).toMatchObject({ test: true, data: { reason: 'SANDBOX_REFRESH', adventure_slug: slug } });
    expect(unavailable[0]!.data.quote_ids).toContain(sandboxQuote.body.id);
    const delivered = await eventually(
      () => p.got().filter((e) => e.data.adventure_slug === slug),
      (x) => x.length > 0,
    );
    expect(delivered).toEqual([expect.objectContaining({ test: true, data: expect.objectContaining({ reason: 'SANDBOX_REFRESH' }) })]);
    expect(liveWatcher.got().filter((e) => e.data.adventure_slug === slug)).toHaveLength(1);
  });

  it('closing a slot reaches every live subscriber, with or without quotes, once; not disabled endpoints, other types or the sandbox', async () => {
    const date = nextWeekday(5, 20);
    const holder = await watcher('live');
    const bystander = await watcher('live');
    const disabled = await watcher('live');
    expect((await write('PATCH', `/webhooks/${disabled.endpointId}`, disabled.key, { status: 'DISABLED' })).status).toBe(200);
    const otherType = await watcher('live', ['booking.confirmed']);
    const sandbox = await watcher('test');
    const q = await quote(holder.live_key, { rate_pack_id: ids.weekdayPack, start_date: date, start_time: '15:00', travelers: [{ age: 30 }] });
    expect(q.status, q.text).toBe(201);
    await pastIndexLag(); // the quotes on a slot and the subscribers are read through indexes
    const closed = await admin(['catalog:close-slot', '--rate-pack', ids.weekdayPack, '--date', date, '--time', '15:00', '--json']);
    expect(closed.json.events).toBeGreaterThanOrEqual(2);
    const common = { adventure_id: ids.advA, rate_pack_id: ids.weekdayPack, date, start_time: '15:00', reason: 'SLOT_CLOSED' };
    const mine = (w: { got: () => { data: Record<string, any> }[] }) => w.got().filter((e) => e.data.date === date && e.data.reason === 'SLOT_CLOSED');
    expect(
      (
        await eventually(
          () => mine(holder),
          (x) => x.length > 0,
        )
      )[0]!.data,
    ).toMatchObject({ ...common, quote_ids: [q.body.id], quote_count: 1 });
    expect(
      (
        await eventually(
          () => mine(bystander),
          (x) => x.length > 0,
        )
      )[0]!.data,
    ).toMatchObject({ ...common, quote_ids: [], quote_count: 0 });
    // Closing it again records nothing twice.
    expect((await admin(['catalog:close-slot', '--rate-pack', ids.weekdayPack, '--date', date, '--time', '15:00', '--json'])).json.events).toBe(0);
    await new Promise((r) => setTimeout(r, 2000));
    expect(mine(holder)).toHaveLength(1);
    expect(mine(bystander)).toHaveLength(1);
    for (const w of [disabled, otherType, sandbox]) expect(mine(w)).toHaveLength(0);
  });

  it('a slot that sells out is announced once (SOLD_OUT), and again after a cancellation frees a seat and it sells out again', async () => {
    const date = nextWeekday(3, 20);
    const pack = { id: ids.weekdayPack, start_time: '10:00' };
    const booker = await watcher('live');
    const bystander = await watcher('live');
    const sandbox = await watcher('test');
    const jwk = await livePaymentKey(booker.partner_id);
    // Each quote body differs (the age), so two signed in the same second are not one replayed signature.
    let age = 40;
    const book = async (q?: { id: string; travelers: unknown[]; net_amount: { amount: string } }) => {
      q ??= await quoteFor(booker.live_key, pack, date, [{ age: age++ }]);
      return write('POST', '/bookings', booker.live_key, bookingBody(q!, await signPayment(jwk, paidClaims(q!))));
    };
    const soldOut = (w: { got: () => { id: string; data: Record<string, any> }[] }) =>
      w.got().filter((e) => e.data.reason === 'SOLD_OUT' && e.data.date === date && e.data.rate_pack_id === ids.weekdayPack);
    const first = await book();
    expect(first.status, first.text).toBe(201);
    expect((await book()).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1500));
    expect(soldOut(bystander)).toHaveLength(0);
    // Taken while one place is left, booked once there is none.
    const late = await quoteFor(booker.live_key, pack, date, [{ age: 31 }]);
    // The third of three places sells the slot out.
    expect((await book()).status).toBe(201);
    const announced = await eventually(
      () => soldOut(bystander),
      (x) => x.length > 0,
    );
    expect(announced[0]!.data).toEqual({
      adventure_id: ids.advA,
      adventure_slug: expect.any(String),
      rate_pack_id: ids.weekdayPack,
      date,
      start_time: '10:00',
      reason: 'SOLD_OUT',
      quote_ids: [],
      quote_count: 0,
    });
    // A refused booking on the full slot announces nothing more.
    expect((await book(late)).body).toMatchObject({ code: 'booking.slot.unavailable', details: { reason: 'sold_out' } });
    await new Promise((r) => setTimeout(r, 2000));
    expect(soldOut(bystander)).toHaveLength(1);
    expect(soldOut(booker)).toHaveLength(1);
    expect(soldOut(sandbox)).toHaveLength(0);

    // A cancellation frees a place; the next booking sells it out again: announced again.
    const cancelled = await write('POST', `/bookings/${first.body.booking_number}/cancel`, booker.live_key, {});
    expect(cancelled.status, cancelled.text).toBe(200);
    expect((await book()).status).toBe(201);
    const again = await eventually(
      () => soldOut(bystander),
      (x) => x.length > 1,
    );
    expect(again).toHaveLength(2);
    expect(again[1]!.id).not.toBe(again[0]!.id);
    await new Promise((r) => setTimeout(r, 1500));
    expect(soldOut(bystander)).toHaveLength(2);
  });

  it("a new partner's sandbox key browses and quotes at once", async () => {
    const p = await newPartner();
    const me = await api('GET', '/me', { key: p.test_key });
    expect(me.status).toBe(200);
    expect((await api('GET', '/adventures?city=Testville', { key: p.test_key })).body.meta.total_results).toBeGreaterThanOrEqual(1);
    expect((await quote(p.test_key, { rate_pack_id: ids.weekdayPack, start_date: nextWeekday(1), start_time: '10:00', travelers: [{ age: 30 }] })).status).toBe(
      201,
    );
  });

  // Last: its withdrawal and refresh write to every partner, which keeps the index copies busy for a while.
  it("the refresh names a sandbox's open quotes as of its clock: one expired on the clock is not named, and the event is at the clock's time", async () => {
    const p = await watcher('test');
    const body = { rate_pack_id: ids.clockPack, start_date: addDays(today, 4), travelers: [{ age: 30 }] };
    const stale = await quote(p.test_key, body);
    expect(stale.status, stale.text).toBe(201);
    // The sandbox clock 2 hours ahead: that quote (valid 30 minutes) has expired on the clock, not in real time.
    const lead = 2 * 3_600_000;
    const advanced = await write('POST', '/test-helpers/clock/advance', p.test_key, { to: new Date(Date.now() + lead).toISOString() });
    expect(advanced.status, advanced.text).toBe(200);
    const clock = await until(
      async () => (await api('GET', '/test-helpers/clock', { key: p.test_key })).body,
      (c) => c.status === 'ready',
      60_000,
    );
    expect(clock.status).toBe('ready');
    expect((await api('GET', `/quotes/${stale.body.id}`, { key: p.test_key })).body.expired).toBe(true);
    const open = await quote(p.test_key, body);
    expect(open.status, open.text).toBe(201);
    await pastIndexLag(); // the quotes on an adventure and the subscribers are read through indexes

    const slug = open.body.adventure_slug;
    expect((await admin(['catalog:withdraw', '--slug', slug, '--json'])).code).toBe(0);
    const refreshed = await admin(['catalog:refresh-sandbox', '--json']);
    expect(refreshed.code, refreshed.stderr).toBe(0);

    const unavailable = (await eventsOf(p.partner_id, 'test')).filter((e) => e.type === 'adventure.unavailable' && e.data.adventure_slug === slug);
    expect(unavailable).toHaveLength(1);
    expect(unavailable[0]!.data).toMatchObject({ reason: 'SANDBOX_REFRESH', quote_ids: [open.body.id], quote_count: 1 });
    // Recorded at the sandbox's time, as its other events are: about 2 hours ahead of real time.
    expect(Date.parse((unavailable[0] as unknown as { created_at: string }).created_at)).toBeGreaterThan(Date.now() + lead / 2);
  });
});
