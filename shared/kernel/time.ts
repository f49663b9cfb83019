/**
 * Calendar dates and start times of adventures are local to Morocco
 * (Africa/Casablanca); instants are UTC.
 */
export const SERVICE_TZ = 'Africa/Casablanca';

/**
 * Made on first use: a formatter with a time zone loads ICU's zone data, about
 * 15 ms, which every function would otherwise pay at cold start, even those
 * that never handle a local date.
 */
const once = <T>(make: () => T) => {
  let value: T | undefined;
  return () => (value ??= make());
};
const dateFmt = once(() => new Intl.DateTimeFormat('en-CA', { timeZone: SERVICE_TZ, year: 'numeric', month: '2-digit', day: '2-digit' }));
const partsFmt = once(
  () =>
    new Intl.DateTimeFormat('en-US', {
      timeZone: SERVICE_TZ,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }),
);

/** The local calendar date of an instant. */
export function localDate(instant: Date): string {
  return dateFmt().format(instant);
}

function offsetMs(instant: number): number {
  const p = Object.fromEntries(
    partsFmt()
      .formatToParts(new Date(instant))
      .map((x) => [x.type, x.value]),
  );
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return asUtc - Math.floor(instant / 1000) * 1000;
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
