import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { haversineKm, prepare, search } from '../../shared/catalog/listing';
import type { AdventureSummary } from '../../shared/catalog/store';

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
