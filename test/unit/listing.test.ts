import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { haversineKm, type ListingQuery, prepare, search } from '../../shared/catalog/listing';
import type { AdventureSummary } from '../../shared/catalog/store';
import { addDays, daysBetween, isoWeekday } from '../../shared/kernel/time';

const adventure = (i: number, lat: number, lng: number, from_price: number): AdventureSummary => ({
  id: `a-${i}`,
  slug: `adventure-${String(i).padStart(4, '0')}`,
  title: `Adventure ${i}`,
  summary: i % 3 === 0 ? 'camel trek' : 'medina walk',
  city: i % 2 ? 'Fes' : 'Marrakech',
  category: 'CULTURE',
  lat,
  lng,
  duration_minutes: 60,
  rating: 4.5,
  review_count: 1,
  popularity: (i * 7919) % 1000,
  from_price,
  booking_modes: ['FLEXIBLE'],
  image: 'https://example.com/x.jpg',
  active: true,
  agency: 'Agency',
  sells: [{ weekdays: [1, 2, 3, 4, 5, 6, 7], window_days: 60 }],
});

/** The reference: every match, its distance, one full sort. */
function bruteForce(items: AdventureSummary[], lat: number, lng: number, offset: number, limit: number, keep: (a: AdventureSummary) => boolean) {
  const all = items.filter(keep).map((a) => ({ slug: a.slug, d: haversineKm(lat, lng, a.lat, a.lng) }));
  all.sort((a, b) => a.d - b.d || a.slug.localeCompare(b.slug));
  return { slugs: all.slice(offset, offset + limit).map((x) => x.slug), total: all.length };
}

describe('distance sort over the grid', () => {
  it('returns exactly the page a full sort would, for any catalog, point, page and filter', () => {
    const point = fc.record({ lat: fc.double({ min: 20, max: 37, noNaN: true }), lng: fc.double({ min: -18, max: 0, noNaN: true }) });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(point, fc.integer({ min: 100, max: 100_000 })), { minLength: 0, maxLength: 300 }),
        point,
        fc.nat({ max: 320 }),
        fc.integer({ min: 1, max: 100 }),
        fc.constantFrom(undefined, 'Fes', 'camel'),
        (places, from, offset, limit, filter) => {
          const items = places.map(([p, price], i) => adventure(i, p.lat, p.lng, price));
          const catalog = prepare(items);
          const r = search(
            catalog,
            { sort: 'distance', lat: from.lat, lng: from.lng, offset, limit, ...(filter === 'Fes' ? { city: 'Fes' } : filter ? { q: filter } : {}) },
            '2026-11-22',
          );
          const keep = (a: AdventureSummary) => (filter === 'Fes' ? a.city === 'Fes' : filter ? a.summary.includes(filter) : true);
          const expected = bruteForce(items, from.lat, from.lng, offset, limit, keep);
          expect(r.total).toBe(expected.total);
          expect(r.items.map((i) => i.adventure.slug)).toEqual(expected.slugs);
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });

  it('agrees with a full sort where distances tie or nearly tie: mirrored points, a point and its next double, the point itself', () => {
    const near = fc.double({ min: -0.02, max: 0.02, noNaN: true });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(near, near, fc.boolean()), { minLength: 1, maxLength: 120 }),
        fc.nat({ max: 100 }),
        fc.integer({ min: 1, max: 30 }),
        (offsets, offset, limit) => {
          const [lat, lng] = [31.6, -8];
          // Each offset gives up to four places: itself, its mirror across the point's meridian, and (flagged) the next double or the point itself.
          const places = offsets.flatMap(([dLat, dLng, odd]) => [
            [lat + dLat, lng + dLng],
            [lat + dLat, lng - dLng],
            odd ? [lat + dLat, lng + dLng + Number.EPSILON * 8] : [lat, lng],
          ]);
          const items = places.map(([a, b], i) => adventure(i, a!, b!, 100));
          const r = search(prepare(items), { sort: 'distance', lat, lng, offset, limit }, '2026-11-22');
          const expected = bruteForce(items, lat, lng, offset, limit, () => true);
          expect(r.items.map((i) => i.adventure.slug)).toEqual(expected.slugs);
          expect(r.items.map((i) => i.distance_km)).toEqual(
            expected.slugs.map((slug) => haversineKm(lat, lng, items.find((a) => a.slug === slug)!.lat, items.find((a) => a.slug === slug)!.lng)),
          );
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it('ties in distance are ordered by slug, as before', () => {
    const items = [adventure(2, 31.6, -8, 100), adventure(1, 31.6, -8, 100)];
    const r = search(prepare(items), { sort: 'distance', lat: 31.6, lng: -8, offset: 0, limit: 10 }, '2026-11-22');
    expect(r.items.map((i) => i.adventure.slug)).toEqual(['adventure-0001', 'adventure-0002']);
  });
});

/** The listing as it was before the compact index: every summary filtered, then one full sort, then the page. */
function fullSort(items: AdventureSummary[], query: ListingQuery, today: string) {
  const q = query.q?.trim().toLowerCase();
  const city = query.city?.toLowerCase();
  const weekday = query.date ? isoWeekday(query.date) : undefined;
  const ahead = query.date ? daysBetween(today, query.date) : undefined;
  const keep = (a: AdventureSummary) =>
    (!q || `${a.title} ${a.summary} ${a.city} ${a.agency} ${a.category}`.toLowerCase().includes(q)) &&
    (!city || a.city.toLowerCase() === city) &&
    (!query.category || a.category === query.category) &&
    (query.min_price === undefined || a.from_price >= query.min_price) &&
    (query.max_price === undefined || a.from_price <= query.max_price) &&
    (weekday === undefined || (a.active && ahead! >= 0 && a.sells.some((p) => p.weekdays.includes(weekday) && ahead! <= p.window_days)));
  const byPopularity = (a: AdventureSummary, b: AdventureSummary) => b.popularity - a.popularity || a.slug.localeCompare(b.slug);
  const distance = (a: AdventureSummary) => haversineKm(query.lat!, query.lng!, a.lat, a.lng);
  const compare = {
    popularity: byPopularity,
    price: (a: AdventureSummary, b: AdventureSummary) => a.from_price - b.from_price || byPopularity(a, b),
    '-price': (a: AdventureSummary, b: AdventureSummary) => b.from_price - a.from_price || byPopularity(a, b),
    distance: (a: AdventureSummary, b: AdventureSummary) => distance(a) - distance(b) || a.slug.localeCompare(b.slug),
  }[query.sort];
  const all = items.filter(keep).sort(compare);
  return {
    total: all.length,
    items: all
      .slice(query.offset, query.offset + query.limit)
      .map((a) => (query.lat !== undefined && query.lng !== undefined ? { adventure: a, distance_km: distance(a) } : { adventure: a })),
  };
}

const TODAY = '2026-11-22';
const WORDS = ['camel', 'Trek', 'médina', 'FÈS', 'surf', 'été', '𝒜dventure', 'souk'];

/** Summaries with many ties (prices, popularity, places), mixed case and accents, inactive ones and several rate packs. */
const summaries = (n: number, seed: number): AdventureSummary[] => {
  let x = seed;
  const rnd = (k: number) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((x / 2 ** 31) * k);
  };
  return Array.from({ length: n }, (_, i) => ({
    ...adventure(i, 30 + rnd(40) / 10, -9 + rnd(40) / 10, 100 * (1 + rnd(20))),
    slug: `adv-${rnd(3) === 0 ? 'x' : ''}${i}`,
    title: `${WORDS[rnd(WORDS.length)]} ${WORDS[rnd(WORDS.length)]} ${i}`,
    summary: `${WORDS[rnd(WORDS.length)]} and ${WORDS[rnd(WORDS.length)]}`,
    city: ['Fes', 'FES', 'Marrakech', 'Agadir', 'Fès'][rnd(5)]!,
    category: ['CULTURE', 'DESERT', 'WATER'][rnd(3)]!,
    agency: ['Atlas Trek', 'Souk Tours'][rnd(2)]!,
    popularity: rnd(50),
    active: rnd(5) !== 0,
    sells: Array.from({ length: rnd(3) }, () => ({ weekdays: [1 + rnd(7), 1 + rnd(7)], window_days: 10 + rnd(60) })),
  }));
};

const queryArb = fc.record({
  sort: fc.constantFrom('popularity', 'price', '-price', 'distance') as fc.Arbitrary<ListingQuery['sort']>,
  q: fc.option(fc.constantFrom('camel', ' TREK ', 'méd', 'fès', 'e', '𝒜d', 'nope', 'l and s'), { nil: undefined }),
  city: fc.option(fc.constantFrom('fes', 'FES', 'Fès', 'Rabat'), { nil: undefined }),
  category: fc.option(fc.constantFrom('CULTURE', 'WATER', 'culture'), { nil: undefined }),
  date: fc.option(
    fc.integer({ min: -3, max: 80 }).map((d) => addDays(TODAY, d)),
    { nil: undefined },
  ),
  min_price: fc.option(fc.integer({ min: 0, max: 2_100 }), { nil: undefined }),
  max_price: fc.option(fc.integer({ min: 0, max: 2_100 }), { nil: undefined }),
  point: fc.option(fc.record({ lat: fc.double({ min: 29, max: 35, noNaN: true }), lng: fc.double({ min: -10, max: -4, noNaN: true }) }), { nil: undefined }),
  offset: fc.nat({ max: 120 }),
  limit: fc.integer({ min: 1, max: 100 }),
});

const toQuery = ({ point, ...rest }: typeof queryArb extends fc.Arbitrary<infer T> ? T : never): ListingQuery => {
  const q = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as unknown as ListingQuery;
  return point || q.sort === 'distance' ? { ...q, lat: point?.lat ?? 31.6, lng: point?.lng ?? -8 } : q;
};

describe('every sort and filter over the compact index', () => {
  it('returns exactly what a full sort returns: the page, its order, its distances and the total', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.nat(), fc.array(queryArb, { minLength: 1, maxLength: 5 }), (n, seed, queries) => {
        const items = summaries(n, seed);
        const catalog = prepare([...items].reverse());
        for (const query of queries.map(toQuery)) expect(search(catalog, query, TODAY)).toEqual(fullSort(items, query, TODAY));
      }),
      { seed: 25, numRuns: 200 },
    );
  }, 120_000);

  it('at 20 000 adventures (index blocks, offsets past the first blocks), as a full sort', () => {
    const items = summaries(20_000, 3);
    const catalog = prepare(items);
    fc.assert(
      fc.property(queryArb, fc.integer({ min: 0, max: 19_000 }), (query, deep) => {
        const q = { ...toQuery(query), offset: query.offset % 2 ? deep : query.offset };
        expect(search(catalog, q, TODAY)).toEqual(fullSort(items, q, TODAY));
      }),
      { seed: 9, numRuns: 40 },
    );
  }, 120_000);

  it('matches q as a string where a search text is not well-formed (a lone surrogate), as a full sort does', () => {
    const items = [
      { ...adventure(1, 31, -8, 100), title: 'Lone \ud800 surrogate' },
      { ...adventure(2, 31, -8, 100), title: 'Replacement \ufffd character' },
      { ...adventure(3, 31, -8, 100), title: 'Pair \ud835\udc9c here' },
    ];
    const catalog = prepare(items);
    for (const q of ['\ud800', '\ufffd', '\ud835', '\udc9c', '\ud835\udc9c', 'e']) {
      const query: ListingQuery = { sort: 'popularity', q, offset: 0, limit: 10 };
      expect(search(catalog, query, TODAY)).toEqual(fullSort(items, query, TODAY));
    }
  });
});
