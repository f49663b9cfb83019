import { addDays, localDate } from '../kernel/time';
import { statementRow } from './csv';
import { lineStatus, sortKeyOf } from './lines';
import type { LedgerLine } from './model';

/** A subtotal of the invoice: lines and their amount. */
export interface Subtotal {
  label: string;
  count: number;
  minor: number;
}

/**
 * What the documents of a settlement need, read once from its lines page by
 * page (`add`), in memory that does not hold the lines: the totals, the
 * subtotals per status, per adventure and per week, the statement rows as
 * short strings with their order, and the lines themselves only while there
 * are at most `keepLines` (the invoice lists them when they are few).
 */
export class SettlementDigest {
  total = 0;
  lineCount = 0;
  bookingCount = 0;
  readonly byStatus = new Map<string, Subtotal>();
  readonly byAdventure = new Map<string, Subtotal>();
  readonly byWeek = new Map<string, Subtotal>();
  /** Each statement row (CSV text, CRLF-terminated) after its sort key: sorted once at the end. */
  private rows: string[] = [];
  private kept: LedgerLine[] | undefined = [];

  constructor(private readonly keepLines: number) {}

  add(lines: LedgerLine[]) {
    for (const l of lines) {
      this.total += l.amount_minor;
      this.lineCount++;
      if (l.kind === 'BOOKING') this.bookingCount++;
      const status = lineStatus(l);
      bump(this.byStatus, status, status, l.amount_minor);
      bump(this.byAdventure, l.adventure, l.adventure, l.amount_minor);
      const week = l.kind === 'BOOKING' ? weekOf(localDate(new Date(l.confirmed_at))) : 'ADJUSTMENT';
      bump(this.byWeek, week, week, l.amount_minor);
      this.rows.push(`${sortKeyOf(l)}\u0000${statementRow(l)}`);
      if (this.kept) {
        this.kept.push(l);
        if (this.kept.length > this.keepLines) this.kept = undefined;
      }
    }
  }

  /** The lines, when there are at most `keepLines` of them. */
  get lines(): LedgerLine[] | undefined {
    return this.kept;
  }

  /** The statement rows in the documents' order, each once (the digest lets go of them). */
  *sortedRows(): Generator<string> {
    const rows = this.rows.sort();
    this.rows = [];
    for (const r of rows) yield r.slice(r.indexOf('\u0000') + 1);
  }
}

function bump(m: Map<string, Subtotal>, key: string, label: string, minor: number) {
  const s = m.get(key);
  if (s) {
    s.count++;
    s.minor += minor;
  } else m.set(key, { label, count: 1, minor });
}

/** The Monday of a date's week (ISO weeks start on Monday): `2026-11-23`. */
export function weekOf(date: string): string {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return addDays(date, -((day + 6) % 7));
}
