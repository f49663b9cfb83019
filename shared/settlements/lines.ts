import { formatMinor } from '../kernel/money';
import type { LedgerLine } from './model';

/** A line's place in the documents: bookings by confirmation, then the adjustments of earlier settlements (compared as strings). */
export const sortKeyOf = (l: LedgerLine) => `${l.kind === 'BOOKING' ? '0' : '1'}|${l.kind === 'BOOKING' ? l.confirmed_at : l.updated_at}|${l.booking_number}`;

/** The order of the documents: bookings by confirmation, then the adjustments of earlier settlements. */
export function orderedLines(lines: LedgerLine[]): LedgerLine[] {
  const keyed = lines.map((l) => ({ k: sortKeyOf(l), l }));
  return keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0)).map((x) => x.l);
}

/** The status column: the booking's status in this settlement, or ADJUSTMENT for the refund of a booking an earlier settlement invoiced. */
export const lineStatus = (l: LedgerLine): string => (l.kind === 'ADJUSTMENT' ? 'ADJUSTMENT' : l.status);

/** The total due: the exact sum of the lines, in centimes. */
export const totalOf = (lines: Pick<LedgerLine, 'amount_minor'>[]): number => lines.reduce((sum, l) => sum + l.amount_minor, 0);

export const amountText = (minor: number) => formatMinor(minor);
