import { addDays, localDate } from '../kernel/time';

/**
 * A settlement period is a calendar month in the service time zone
 * (Africa/Casablanca, the zone of every date the service shows): `YYYY-MM`.
 * A booking belongs to the month of its confirmation instant there.
 */
export type Period = string;

export const PERIOD_RE = /^\d{4}-(0[1-9]|1[0-2])$/;

/** The period of an instant: its month in Morocco. */
export const periodOf = (instant: Date): Period => localDate(instant).slice(0, 7);

/** The period of a calendar date (YYYY-MM-DD). */
export const periodOfDate = (date: string): Period => date.slice(0, 7);

export const periodStart = (p: Period): string => `${p}-01`;

/** The last calendar day of the period. */
export function periodEnd(p: Period): string {
  return addDays(periodStart(nextPeriod(p)), -1);
}

export function nextPeriod(p: Period): Period {
  const [y, m] = p.split('-').map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
}

export function previousPeriod(p: Period): Period {
  const [y, m] = p.split('-').map(Number) as [number, number];
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}

/** The due date of a settlement issued on `issueDate`: the payment term in calendar days. */
export const dueDate = (issueDate: string, termDays: number): string => addDays(issueDate, termDays);
