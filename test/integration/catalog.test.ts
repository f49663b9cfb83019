import { describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../shared/kernel/time';
import { api, newPartner } from './helpers';

const get = async (key: string, path: string) => {
  const r = await api('GET', path, { key });
  expect(r.status, `${path}: ${r.text}`).toBe(200);
  return r.body;
};

async function walk(key: string, query: string, limit: number) {
  const ids: string[] = [];
  const pages: number[] = [];
  let cursor: string | null = null;
  let total = -1;
  do {
    const body: any = await get(key, `/adventures?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    ids.push(...body.data.map((a: { id: string }) => a.id));
    pages.push(body.meta.page_number);
    expect(body.meta.count).toBe(body.data.length);
    total = body.meta.total_results;
    cursor = body.meta.next_cursor;
  } while (cursor);
  return { ids, pages, total };
}

describe('GET /v1/adventures', () => {
  it('pages with offset cursors: no duplicates, no gaps, page numbers and totals', async () => {
    const p = await newPartner();
    for (const key of [p.test_key, p.live_key]) {
      const all = await get(key, '/adventures?city=Marrakech&limit=100');
      expect(all.meta.total_results).toBeGreaterThanOrEqual(5);
      const walked = await walk(key, 'city=Marrakech', 2);
      expect(walked.ids).toEqual(all.data.map((a: { id: string }) => a.id));
      expect(new Set(walked.ids).size).toBe(walked.ids.length);
      expect(walked.total).toBe(all.meta.total_results);
      expect(walked.pages).toEqual(walked.pages.map((_, i) => i + 1));
    }
  });

  it('sorts by popularity (default), price both ways, and distance from lat/lng', async () => {
    const p = await newPartner();
    const pop = (await get(p.test_key, '/adventures?limit=100')).data;
    expect(pop.length).toBeGreaterThanOrEqual(40);
    expect(pop.map((a: { popularity: number }) => a.popularity)).toEqual([...pop.map((a: { popularity: number }) => a.popularity)].sort((a, b) => b - a));
    const price = (await get(p.test_key, '/adventures?sort=price&limit=100')).data.map((a: { from_price: { amount: string } }) => Number(a.from_price.amount));
    expect(price).toEqual([...price].sort((a, b) => a - b));
    const desc = (await get(p.test_key, '/adventures?sort=-price&limit=100')).data.map((a: { from_price: { amount: string } }) => Number(a.from_price.amount));
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
    // From Fes: the nearest are in Fes, distances ascending.
    const near = (await get(p.test_key, '/adventures?sort=distance&lat=34.0331&lng=-5.0003&limit=100')).data;
    const d = near.map((a: { distance_km: number }) => a.distance_km);
    expect(d).toEqual([...d].sort((a, b) => a - b));
    expect(near[0].city).toBe('Fes');
  });

  it('sort=distance without lat and lng -> 400 naming the fields', async () => {
    const p = await newPartner();
    const r = await api('GET', '/adventures?sort=distance&lat=31.6', { key: p.test_key });
    expect(r.status).toBe(400);
    expect(r.body.details.errors.map((e: { field: string }) => e.field)).toContain('lng');
    expect((await api('GET', '/adventures?sort=nearest', { key: p.test_key })).status).toBe(400);
  });

  it('filters by text, city, category, price range and date', async () => {
    const p = await newPartner();
    const k = p.test_key;
    const camel = (await get(k, '/adventures?q=camel&limit=100')).data;
    expect(camel.length).toBeGreaterThan(0);
    expect(camel.every((a: { title: string; summary: string }) => `${a.title} ${a.summary}`.toLowerCase().includes('camel'))).toBe(true);
    expect((await get(k, '/adventures?city=essaouira&limit=100')).data.every((a: { city: string }) => a.city === 'Essaouira')).toBe(true);
    expect((await get(k, '/adventures?category=FOOD&limit=100')).data.every((a: { category: string }) => a.category === 'FOOD')).toBe(true);
    const mid = (await get(k, '/adventures?min_price=300&max_price=800.50&limit=100')).data.map((a: { from_price: { amount: string } }) =>
      Number(a.from_price.amount),
    );
    expect(mid.length).toBeGreaterThan(0);
    expect(mid.every((x: number) => x >= 300 && x <= 800.5)).toBe(true);
    const date = addDays(localDate(new Date()), 3);
    const onDate = (await get(k, `/adventures?date=${date}&limit=100`)).data;
    expect(onDate.length).toBeGreaterThan(10);
    expect(onDate.every((a: { bookable: boolean }) => a.bookable)).toBe(true);
    // Past the booking horizon (today plus 365 days) nothing is sold: the date itself is refused, naming it.
    const far = await api('GET', `/adventures?date=${addDays(localDate(new Date()), 400)}`, { key: k });
    expect(`${far.status} ${far.body.details?.errors?.[0]?.field}`).toBe('400 date');
    expect((await get(k, `/adventures?date=${addDays(localDate(new Date()), 365)}`)).meta.total_results).toBeGreaterThanOrEqual(0);
    expect((await api('GET', '/adventures?date=2026-02-30', { key: k })).status).toBe(400);
    expect((await api('GET', '/adventures?min_price=99999999999999999999', { key: k })).status).toBe(400);
  });

  it('binds the cursor to the endpoint and to the query', async () => {
    const p = await newPartner();
    const c = (await get(p.test_key, '/adventures?limit=2')).meta.next_cursor;
    const onQuotes = await api('GET', `/quotes?cursor=${encodeURIComponent(c)}`, { key: p.test_key });
    expect(onQuotes.status).toBe(400);
    expect(onQuotes.body.code).toBe('pagination.cursor.wrong_endpoint');
    const otherQuery = await api('GET', `/adventures?sort=price&limit=2&cursor=${encodeURIComponent(c)}`, { key: p.test_key });
    expect(otherQuery.body.code).toBe('pagination.cursor.invalid');
    const auditCursor = (await get(p.test_key, '/audit-events?limit=1')).meta.next_cursor;
    if (auditCursor)
      expect((await api('GET', `/adventures?cursor=${encodeURIComponent(auditCursor)}`, { key: p.test_key })).body.code).toBe(
        'pagination.cursor.wrong_endpoint',
      );
  });
});

describe('GET /v1/adventures/{slug} and availability', () => {
  it('returns the adventure with its rate packs; unknown slug -> 404', async () => {
    const p = await newPartner();
    const first = (await get(p.live_key, '/adventures?limit=1')).data[0];
    const a = await get(p.live_key, `/adventures/${first.slug}`);
    expect(a).toMatchObject({ id: first.id, slug: first.slug, description: expect.any(String) });
    expect(a.rate_packs.length).toBeGreaterThan(0);
    expect(a.rate_packs[0].age_brackets[0].price.currency).toBe('MAD');
    expect((await api('GET', '/adventures/no-such-adventure', { key: p.live_key })).body.code).toBe('resource.not_found');
  });

  it('every day of the next 60 has sellable slots with room, for both modes', async () => {
    const p = await newPartner();
    const list = (await get(p.test_key, '/adventures?limit=100')).data;
    const today = localDate(new Date());
    const days = new Set<string>();
    const modes = new Set<string>();
    for (const a of list.slice(0, 12)) {
      const r = await get(p.test_key, `/adventures/${a.slug}/availability?from=${today}&to=${addDays(today, 59)}`);
      for (const s of r.data) {
        expect(s.remaining).toBeGreaterThanOrEqual(4);
        days.add(s.date);
        modes.add(s.booking_mode);
        if (s.booking_mode === 'FLEXIBLE') expect(s.start_time).toBeNull();
        else expect(s.start_time).toMatch(/^\d{2}:\d{2}$/);
      }
    }
    for (let i = 1; i < 60; i++) expect(days.has(addDays(today, i)), addDays(today, i)).toBe(true);
    expect([...modes].sort()).toEqual(['FLEXIBLE', 'SCHEDULED']);
  });

  it('refuses ranges over 62 days and reversed ranges', async () => {
    const p = await newPartner();
    const slug = (await get(p.test_key, '/adventures?limit=1')).data[0].slug;
    const today = localDate(new Date());
    expect((await api('GET', `/adventures/${slug}/availability?from=${today}&to=${addDays(today, 62)}`, { key: p.test_key })).status).toBe(400);
    expect((await api('GET', `/adventures/${slug}/availability?from=${addDays(today, 5)}&to=${today}`, { key: p.test_key })).status).toBe(400);
  });
});
