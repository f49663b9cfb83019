import { describe, expect, it } from 'vitest';
import { checkSlot, slotsBetween } from '../../shared/catalog/slots';
import { addDays, isoWeekday, localDate, localToInstant } from '../../shared/kernel/time';

const scheduled = {
  booking_mode: 'SCHEDULED' as const,
  schedule: { weekdays: [1, 2, 3, 4, 5, 6, 7], start_times: ['14:00', '09:00'], capacity_per_departure: 12 },
};
const weekdaysOnly = { booking_mode: 'FLEXIBLE' as const, schedule: { weekdays: [1, 2, 3, 4, 5], daily_capacity: 30 } };

describe('service time', () => {
  it('computes local dates, weekdays and instants in Africa/Casablanca', () => {
    expect(isoWeekday('2026-11-22')).toBe(7);
    expect(isoWeekday('2026-11-23')).toBe(1);
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    // Summer 2026: UTC+1 in every tz database release (2025c said UTC+1 in November too; 2026c, in Node 22, says UTC+0).
    expect(localToInstant('2026-07-01', '09:00').toISOString()).toBe('2026-07-01T08:00:00.000Z');
    expect(localDate(new Date('2026-07-01T23:30:00Z'))).toBe('2026-07-02');
    // Ramadan 2026 (late February): UTC+0 in every release.
    expect(localToInstant('2026-03-01', '09:00').toISOString()).toBe('2026-03-01T09:00:00.000Z');
  });
});

describe('slots', () => {
  const now = new Date('2026-11-25T10:00:00Z'); // 11:00 local, a Wednesday
  it('sells scheduled departures at published times, until one hour before start', () => {
    expect(checkSlot(scheduled, { date: '2026-11-25', start_time: '14:00' }, now)).toMatchObject({ ok: true, slot: { capacity: 12 } });
    expect(checkSlot(scheduled, { date: '2026-11-25', start_time: '09:00' }, now)).toEqual({ ok: false, reason: 'sales_closed' });
    expect(checkSlot(scheduled, { date: '2026-11-26', start_time: '10:00' }, now)).toEqual({ ok: false, reason: 'unknown_start_time' });
    expect(checkSlot(scheduled, { date: '2026-11-26', start_time: null }, now)).toEqual({ ok: false, reason: 'start_time_required' });
    expect(checkSlot(scheduled, { date: '2026-11-24', start_time: '14:00' }, now)).toEqual({ ok: false, reason: 'in_past' });
    expect(checkSlot(scheduled, { date: addDays('2026-11-25', 61), start_time: '14:00' }, now)).toEqual({ ok: false, reason: 'beyond_window' });
  });

  it('sells flexible days without a start time on operating weekdays', () => {
    expect(checkSlot(weekdaysOnly, { date: '2026-11-25', start_time: null }, now)).toMatchObject({ ok: true, slot: { start_time: null, capacity: 30 } });
    expect(checkSlot(weekdaysOnly, { date: '2026-11-29', start_time: null }, now)).toEqual({ ok: false, reason: 'not_operating' });
    expect(checkSlot(weekdaysOnly, { date: '2026-11-26', start_time: '09:00' }, now)).toEqual({ ok: false, reason: 'start_time_not_allowed' });
  });

  it('generates a rolling window: every day of the next 60 has slots for a daily pack', () => {
    const slots = slotsBetween(scheduled, '2026-11-25', addDays('2026-11-25', 60), now);
    const days = new Set(slots.map((s) => s.date));
    expect(days.size).toBe(61);
    expect(slots[0]).toMatchObject({ date: '2026-11-25', start_time: '14:00' }); // 09:00 today already closed
    expect(slots[1]).toMatchObject({ date: '2026-11-26', start_time: '09:00' });
  });
});
