import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BOOKING_NUMBER_RE, customerRefHash, initials, newBookingNumber, refundPreview } from '../../shared/bookings/rules';

const moderate = [
  { hours_before: 72, refund_percent: 100 },
  { hours_before: 24, refund_percent: 50 },
  { hours_before: 0, refund_percent: 0 },
];
const start = new Date('2026-12-10T09:00:00Z');
const hoursBefore = (h: number) => new Date(start.getTime() - h * 3_600_000);

describe('refund preview', () => {
  it('applies the largest threshold still reached, inclusive', () => {
    expect(refundPreview(100_00, moderate, start, hoursBefore(72))).toMatchObject({ refund_percent: 100, refundable: 100_00, fee: 0 });
    expect(refundPreview(100_00, moderate, start, hoursBefore(71.9))).toMatchObject({ refund_percent: 50, refundable: 50_00, fee: 50_00 });
    expect(refundPreview(100_00, moderate, start, hoursBefore(1))).toMatchObject({ refund_percent: 0, refundable: 0, fee: 100_00 });
    expect(refundPreview(100_00, moderate, start, hoursBefore(-1))).toMatchObject({ applied_rule: null, refundable: 0, valid_until: null });
  });

  it('holds until the next threshold is crossed', () => {
    expect(refundPreview(100_00, moderate, start, hoursBefore(100)).valid_until).toEqual(hoursBefore(72));
    expect(refundPreview(100_00, moderate, start, hoursBefore(30)).valid_until).toEqual(hoursBefore(24));
  });

  it('property: refund + fee = amount, refund never negative nor above the amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.double({ min: -100, max: 500, noNaN: true }), (amount, h) => {
        const r = refundPreview(amount, moderate, start, hoursBefore(h));
        return r.refundable + r.fee === amount && r.refundable >= 0 && r.refundable <= amount;
      }),
    );
  });
});

describe('booking numbers, customer references, initials', () => {
  it('makes readable, distinct booking numbers', () => {
    const set = new Set(Array.from({ length: 2000 }, newBookingNumber));
    expect(set.size).toBe(2000);
    for (const n of set) expect(n).toMatch(BOOKING_NUMBER_RE);
  });

  it('hashes a customer reference per partner key, deterministically', () => {
    const k1 = randomBytes(32);
    const k2 = randomBytes(32);
    expect(customerRefHash(k1, 'CUST-1')).toBe(customerRefHash(k1, 'CUST-1'));
    expect(customerRefHash(k1, 'CUST-1')).not.toBe(customerRefHash(k2, 'CUST-1'));
    expect(customerRefHash(k1, 'CUST-1')).not.toContain('CUST');
  });

  it('reduces names to initials', () => {
    expect(initials('Amina', 'El Idrissi')).toBe('A. E.');
    expect(initials('élodie', '')).toBe('É.');
  });
});
