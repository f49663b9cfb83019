import { addDays, daysBetween, isoWeekday, localDate, localToInstant } from '../kernel/time';

export const DEFAULT_BOOKING_WINDOW_DAYS = 60;
/** The longest booking window a pack may have (catalog import): no route takes a date further ahead. */
export const MAX_BOOKING_WINDOW_DAYS = 365;

/** How many days ahead a pack sells (its own window, or the default of 60). */
export const bookingWindowDays = (pack: { booking_window_days?: number }) => pack.booking_window_days ?? DEFAULT_BOOKING_WINDOW_DAYS;
/** Scheduled departures stop selling this long before they start. */
export const SALES_CUTOFF_MINUTES = 60;

export interface SlotPack {
  booking_mode: 'SCHEDULED' | 'FLEXIBLE';
  schedule: { weekdays: number[]; start_times?: string[]; capacity_per_departure?: number; daily_capacity?: number };
  booking_window_days?: number;
}

export interface SlotRef {
  date: string;
  /** null for FLEXIBLE packs: the slot is the whole day. */
  start_time: string | null;
}

export interface Slot extends SlotRef {
  capacity: number;
  /** When the slot starts (FLEXIBLE: the start of the local day). */
  starts_at: Date;
}

export type SlotCheck =
  | { ok: true; slot: Slot }
  | {
      ok: false;
      reason: 'in_past' | 'beyond_window' | 'not_operating' | 'unknown_start_time' | 'start_time_required' | 'start_time_not_allowed' | 'sales_closed';
    };

function capacityOf(pack: SlotPack): number {
  return (pack.booking_mode === 'SCHEDULED' ? pack.schedule.capacity_per_departure : pack.schedule.daily_capacity) ?? 0;
}

/**
 * Whether a slot is sellable now: on an operating weekday, within the
 * booking window counted from today (local), at a published start time, and
 * not yet past the sales cut-off. Slots are generated from the pack's
 * schedule, so the window rolls forward by itself every day.
 */
export function checkSlot(pack: SlotPack, ref: SlotRef, now: Date): SlotCheck {
  const today = localDate(now);
  if (ref.date < today) return { ok: false, reason: 'in_past' };
  if (daysBetween(today, ref.date) > bookingWindowDays(pack)) return { ok: false, reason: 'beyond_window' };
  if (!pack.schedule.weekdays.includes(isoWeekday(ref.date))) return { ok: false, reason: 'not_operating' };
  if (pack.booking_mode === 'FLEXIBLE') {
    if (ref.start_time !== null) return { ok: false, reason: 'start_time_not_allowed' };
    return { ok: true, slot: { date: ref.date, start_time: null, capacity: capacityOf(pack), starts_at: localToInstant(ref.date) } };
  }
  if (ref.start_time === null) return { ok: false, reason: 'start_time_required' };
  if (!(pack.schedule.start_times ?? []).includes(ref.start_time)) return { ok: false, reason: 'unknown_start_time' };
  const starts_at = localToInstant(ref.date, ref.start_time);
  if (starts_at.getTime() - SALES_CUTOFF_MINUTES * 60_000 <= now.getTime()) return { ok: false, reason: 'sales_closed' };
  return { ok: true, slot: { date: ref.date, start_time: ref.start_time, capacity: capacityOf(pack), starts_at } };
}

/** Every sellable slot of a pack between two local dates (inclusive), before capacity is taken into account. */
export function slotsBetween(pack: SlotPack, from: string, to: string, now: Date): Slot[] {
  const out: Slot[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) {
    const times = pack.booking_mode === 'SCHEDULED' ? [...(pack.schedule.start_times ?? [])].sort() : [null];
    for (const t of times) {
      const c = checkSlot(pack, { date: d, start_time: t }, now);
      if (c.ok) out.push(c.slot);
    }
  }
  return out;
}
