import { describe, expect, it } from 'vitest';
import { verdict } from '../../shared/files/validate';
import { average, bookingIdOf, displayName, kindOf, moderate, ratingDelta, reviewableOf } from '../../shared/reviews/rules';

const adventure = (minutes: number) => ({
  id: '00000000-0000-4000-8000-000000000001',
  duration_minutes: minutes,
  agency: { id: '00000000-0000-4000-8000-000000000002' },
});

describe('review rules', () => {
  it('a day or more is a TRIP, anything shorter an EXPERIENCE; the reviewable follows the type', () => {
    expect([kindOf(180), kindOf(1439), kindOf(1440), kindOf(4320)]).toEqual(['EXPERIENCE', 'EXPERIENCE', 'TRIP', 'TRIP']);
    expect(reviewableOf('EXPERIENCE', adventure(180))).toEqual({ ok: true, id: adventure(0).id });
    expect(reviewableOf('TRIP', adventure(180))).toEqual({ ok: false, expected: 'EXPERIENCE' });
    expect(reviewableOf('AGENCY', adventure(4320))).toEqual({ ok: true, id: adventure(0).agency.id });
  });

  it('moderation moves between the spec states and refuses what does not apply', () => {
    expect(moderate('VISIBLE', 'HIDDEN')).toBe('HIDDEN');
    expect(moderate('HIDDEN', 'RESTORED')).toBe('VISIBLE');
    expect(moderate('HIDDEN', 'DELETED')).toBe('DELETED');
    expect(moderate('VISIBLE', 'DELETED')).toBe('DELETED');
    expect(moderate('VISIBLE', 'RESTORED')).toBeUndefined();
    expect(moderate('HIDDEN', 'HIDDEN')).toBeUndefined();
    for (const a of ['HIDDEN', 'RESTORED', 'DELETED'] as const) expect(moderate('DELETED', a)).toBeUndefined();
  });

  it('counts only visible reviews in the aggregates', () => {
    const v = (rating: number) => ({ status: 'VISIBLE' as const, rating });
    const h = (rating: number) => ({ status: 'HIDDEN' as const, rating });
    expect(ratingDelta(undefined, v(4))).toEqual({ sum: 4, count: 1 });
    expect(ratingDelta(v(4), v(2))).toEqual({ sum: -2, count: 0 });
    expect(ratingDelta(v(4), h(4))).toEqual({ sum: -4, count: -1 });
    expect(ratingDelta(h(4), h(1))).toEqual({ sum: 0, count: 0 });
    expect(ratingDelta(h(3), v(3))).toEqual({ sum: 3, count: 1 });
    expect([average(0, 0), average(14, 3), average(9, 2)]).toEqual([0, 4.67, 4.5]);
  });

  it('names travelers by first name and initial, and bookings by a stable UUID', () => {
    expect(displayName('Amina', 'el Idrissi')).toBe('Amina E.');
    expect(displayName(' Lucas ', '')).toBe('Lucas');
    expect(bookingIdOf('PTB-AAAA-BBBB')).toBe(bookingIdOf('PTB-AAAA-BBBB'));
    expect(bookingIdOf('PTB-AAAA-BBBB')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('upload verdict', () => {
  const png = { content_type: 'image/png' as const, size_bytes: 1000 };
  it('accepts the declared type within the declared size, and names what is wrong otherwise', () => {
    expect(verdict(png, 500, 'image/png')).toBeUndefined();
    expect(verdict(png, 0, undefined)).toBe('empty');
    expect(verdict(png, 1001, 'image/png')).toBe('too_large');
    expect(verdict(png, 500, 'image/jpeg')).toBe('type_mismatch');
    expect(verdict(png, 500, undefined)).toBe('unrecognized_type');
  });
});
