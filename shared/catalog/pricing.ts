import { toMinor } from '../kernel/money';

/**
 * The pricing engine: one pure function shared by partner quotes and the
 * consumer site, so both always agree. Each traveler is priced at the age
 * bracket that contains their age on the travel date; bracket bounds are
 * inclusive at both ends (a bracket 4-17 contains 4 and 17).
 */
export interface PricedBracket {
  code: string;
  label: string;
  min_age: number;
  max_age: number;
  price: string;
}

export interface PricingRatePack {
  age_brackets: PricedBracket[];
  min_travelers: number;
  max_travelers: number;
}

export type TravelerInput = { age: number } | { birth_date: string };

export interface PricedTraveler {
  index: number;
  age: number;
  bracket: PricedBracket;
  /** Minor units. */
  amount: number;
}

export type PricingResult =
  | { ok: true; travelers: PricedTraveler[]; total: number }
  | { ok: false; error: 'party_too_small' | 'party_too_large'; min: number; max: number; size: number }
  | { ok: false; error: 'age_out_of_range'; travelers: { index: number; age: number }[]; brackets: { code: string; min_age: number; max_age: number }[] };

/** Whole years between a birth date and the travel date (both ISO calendar dates). */
export function ageOn(birthDate: string, travelDate: string): number {
  const [by, bm, bd] = birthDate.split('-').map(Number) as [number, number, number];
  const [ty, tm, td] = travelDate.split('-').map(Number) as [number, number, number];
  let age = ty - by;
  if (tm < bm || (tm === bm && td < bd)) age--;
  return age;
}

export function bracketFor(brackets: PricedBracket[], age: number): PricedBracket | undefined {
  return brackets.find((b) => age >= b.min_age && age <= b.max_age);
}

export function priceTravelers(pack: PricingRatePack, travelDate: string, travelers: TravelerInput[]): PricingResult {
  const size = travelers.length;
  if (size < pack.min_travelers) return { ok: false, error: 'party_too_small', min: pack.min_travelers, max: pack.max_travelers, size };
  if (size > pack.max_travelers) return { ok: false, error: 'party_too_large', min: pack.min_travelers, max: pack.max_travelers, size };
  const priced: PricedTraveler[] = [];
  const outside: { index: number; age: number }[] = [];
  travelers.forEach((t, index) => {
    const age = 'age' in t ? t.age : ageOn(t.birth_date, travelDate);
    const bracket = bracketFor(pack.age_brackets, age);
    if (!bracket) outside.push({ index, age });
    else priced.push({ index, age, bracket, amount: toMinor(bracket.price) });
  });
  if (outside.length > 0) {
    return {
      ok: false,
      error: 'age_out_of_range',
      travelers: outside,
      brackets: pack.age_brackets.map(({ code, min_age, max_age }) => ({ code, min_age, max_age })),
    };
  }
  return { ok: true, travelers: priced, total: priced.reduce((s, t) => s + t.amount, 0) };
}

/**
 * The "from" price shown in listings: the lowest price of a standard adult
 * (age 30) over the given packs, or of their most expensive bracket when no
 * bracket covers 30.
 */
export function fromPrice(packs: PricingRatePack[]): number {
  let best = Number.POSITIVE_INFINITY;
  for (const p of packs) {
    const adult = bracketFor(p.age_brackets, 30);
    const price = adult ? toMinor(adult.price) : Math.max(...p.age_brackets.map((b) => toMinor(b.price)));
    best = Math.min(best, price);
  }
  return Number.isFinite(best) ? best : 0;
}
