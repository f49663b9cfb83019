import { TZ_RULES } from './tz-rules';

/**
 * Calendar dates and start times of adventures are local to Morocco
 * (Africa/Casablanca); instants are UTC.
 */
export const SERVICE_TZ = TZ_RULES.zone;

/**
 * Morocco's offsets come from the IANA rules bundled with the code
 * (tz-rules.ts), not from the runtime's Intl data: two Node.js builds may ship
 * different tz releases (Node 20's 2025c has UTC+1 in November 2026 where
 * 2026c and later have UTC+0), and every date the service computes must be the
 * same on every runtime. tz-check.ts compares the runtime's data with them.
 */
interface Table {
  /** Where each offset starts (ms); the first is -Infinity. */
  starts: Float64Array;
  offsets: Float64Array;
}

let table: Table | undefined;
/** Built on first use from the generated rules (a few microseconds). */
function rules(): Table {
  if (table) return table;
  const starts = new Float64Array(TZ_RULES.changes.length + 1).fill(Number.NEGATIVE_INFINITY);
  const offsets = new Float64Array(TZ_RULES.changes.length + 1).fill(TZ_RULES.initial * 1000);
  TZ_RULES.changes.forEach(([from, seconds], i) => {
    starts[i + 1] = Date.parse(from);
    offsets[i + 1] = seconds * 1000;
  });
  table = { starts, offsets };
  return table;
}

let used = false;
/** Whether this process has computed a Morocco time yet (tz-check.ts compares the runtime's data only then). */
export const zoneInUse = () => used;

/** Morocco's offset from UTC at an instant (ms since the epoch), in ms, from the bundled rules. */
export function offsetMs(instant: number): number {
  if (!Number.isFinite(instant)) throw new RangeError('Invalid time value');
  used = true;
  const { starts, offsets } = rules();
  // The last offset that starts at or before the instant, looked for from the newest: the service's instants are recent.
  let i = starts.length - 1;
  while (starts[i]! > instant) i--;
  return offsets[i]!;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/** The local calendar date of an instant (the UTC getters: toISOString is four times slower). */
export function localDate(instant: Date): string {
  const t = instant.getTime();
  const local = new Date(t + offsetMs(t));
  return `${local.getUTCFullYear()}-${pad2(local.getUTCMonth() + 1)}-${pad2(local.getUTCDate())}`;
}

/** The instant of a local date and time (HH:MM) in the service time zone. */
export function localToInstant(date: string, time = '00:00'): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const [hh, mm] = time.split(':').map(Number) as [number, number];
  const guess = Date.UTC(y, m - 1, d, hh, mm);
  const first = guess - offsetMs(guess);
  return new Date(guess - offsetMs(first));
}

export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** ISO weekday, 1 = Monday ... 7 = Sunday. */
export function isoWeekday(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const w = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  return w === 0 ? 7 : w;
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export const isCalendarDate = (s: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);
