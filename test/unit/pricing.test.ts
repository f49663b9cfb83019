import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ageOn, fromPrice, type PricedBracket, priceTravelers } from '../../shared/catalog/pricing';
import { formatMinor, toMinor } from '../../shared/kernel/money';

const pack = {
  min_travelers: 1,
  max_travelers: 10,
  age_brackets: [
    { code: 'INFANT', label: 'Infant', min_age: 0, max_age: 3, price: '0.00' },
    { code: 'CHILD', label: 'Child', min_age: 4, max_age: 17, price: '225.50' },
    { code: 'ADULT', label: 'Adult', min_age: 18, max_age: 99, price: '450.00' },
  ],
};

/** Contiguous, non-overlapping brackets over 0..N with random prices. */
const bracketsArb = fc.array(fc.tuple(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 500_000 })), { minLength: 1, maxLength: 5 }).map((parts) => {
  let start = 0;
  return parts.map(([width, price], i): PricedBracket => {
    const b = { code: `B${i}`, label: `B${i}`, min_age: start, max_age: start + width - 1, price: formatMinor(price) };
    start += width;
    return b;
  });
});

describe('money', () => {
  it('round-trips minor units', () => {
    fc.assert(fc.property(fc.integer({ min: -1e12, max: 1e12 }), (n) => toMinor(formatMinor(n)) === n));
    expect(formatMinor(5)).toBe('0.05');
    expect(formatMinor(-12345)).toBe('-123.45');
  });
});

describe('pricing engine', () => {
  it('prices each traveler at their bracket; bounds are inclusive', () => {
    const r = priceTravelers(pack, '2026-12-01', [{ age: 3 }, { age: 4 }, { age: 17 }, { age: 18 }, { age: 99 }]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.travelers.map((t) => t.bracket.code)).toEqual(['INFANT', 'CHILD', 'CHILD', 'ADULT', 'ADULT']);
    expect(r.total).toBe(0 + 22550 + 22550 + 45000 + 45000);
  });

  it('uses the age on the travel date for birth dates', () => {
    expect(ageOn('2008-12-02', '2026-12-01')).toBe(17);
    expect(ageOn('2008-12-01', '2026-12-01')).toBe(18);
    const r = priceTravelers(pack, '2026-12-01', [{ birth_date: '2008-12-02' }, { birth_date: '2008-12-01' }]);
    expect(r.ok && r.travelers.map((t) => t.bracket.code)).toEqual(['CHILD', 'ADULT']);
  });

  it('refuses ages outside every bracket and parties outside the limits', () => {
    expect(priceTravelers(pack, '2026-12-01', [{ age: 100 }, { age: 30 }])).toMatchObject({
      ok: false,
      error: 'age_out_of_range',
      travelers: [{ index: 0, age: 100 }],
    });
    expect(priceTravelers(pack, '2026-12-01', [])).toMatchObject({ ok: false, error: 'party_too_small' });
    expect(
      priceTravelers(
        pack,
        '2026-12-01',
        Array.from({ length: 11 }, () => ({ age: 30 })),
      ),
    ).toMatchObject({ ok: false, error: 'party_too_large', max: 10 });
  });

  it('property: the total equals the sum of the lines, is never negative, and each traveler sits in a bracket containing their age', () => {
    fc.assert(
      fc.property(bracketsArb, fc.array(fc.integer({ min: 0, max: 120 }), { minLength: 1, maxLength: 15 }), (brackets, ages) => {
        const r = priceTravelers(
          { age_brackets: brackets, min_travelers: 1, max_travelers: 15 },
          '2026-12-01',
          ages.map((age) => ({ age })),
        );
        const top = brackets.at(-1)!.max_age;
        if (ages.some((a) => a > top)) return !r.ok && r.error === 'age_out_of_range';
        if (!r.ok) return false;
        const sum = r.travelers.reduce((s, t) => s + t.amount, 0);
        return (
          r.total === sum &&
          r.total >= 0 &&
          r.travelers.every((t) => t.bracket.min_age <= t.age && t.age <= t.bracket.max_age && t.amount === toMinor(t.bracket.price))
        );
      }),
    );
  });

  it('property: bracket boundaries are inclusive at both ends', () => {
    fc.assert(
      fc.property(bracketsArb, (brackets) =>
        brackets.every((b) => {
          const lo = priceTravelers({ age_brackets: brackets, min_travelers: 1, max_travelers: 2 }, '2026-12-01', [{ age: b.min_age }, { age: b.max_age }]);
          return lo.ok && lo.travelers.every((t) => t.bracket.code === b.code);
        }),
      ),
    );
  });

  it('from-price is the cheapest standard adult over the packs', () => {
    expect(fromPrice([pack])).toBe(45000);
    expect(fromPrice([pack, { ...pack, age_brackets: [{ code: 'ALL', label: 'All', min_age: 0, max_age: 99, price: '300.00' }] }])).toBe(30000);
    expect(fromPrice([{ ...pack, age_brackets: [{ code: 'KID', label: 'Kid', min_age: 0, max_age: 12, price: '80.00' }] }])).toBe(8000);
  });
});
