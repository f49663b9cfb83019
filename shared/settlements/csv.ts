import { stringify } from 'csv-stringify/sync';
import { localDate } from '../kernel/time';
import { amountText, lineStatus, orderedLines, totalOf } from './lines';
import type { LedgerLine, SettlementRecord } from './model';
import { periodEnd, periodStart } from './period';

/** A plain decimal number, as the amount column holds: not a formula even when negative. */
const NUMBER = /^-?\d+(\.\d+)?$/;

/** What a spreadsheet runs as a formula when a cell, or a line of it, starts with it. */
const FORMULA_START = /^[=+\-@\t\r]/;
const neutralizeLine = (line: string) => (FORMULA_START.test(line) && !NUMBER.test(line) ? `'${line}` : line);

/**
 * OWASP CSV injection: a cell that a spreadsheet would run as a formula
 * (starting with =, +, -, @, a tab or a carriage return) is prefixed with a
 * single quote, so it is shown as text. So is every line of a cell that holds
 * line breaks (text stored before control characters were refused), in case a
 * reader splits it. Plain numbers are left as they are.
 */
export function neutralizeCell(value: string): string {
  return neutralizeLine(
    value
      .split(/(\r\n|\r|\n)/)
      .map((part, i) => (i % 2 ? part : neutralizeLine(part)))
      .join(''),
  );
}

export const STATEMENT_COLUMNS = [
  'BookingNumber',
  'PartnerReference',
  'TravelDate',
  'ConfirmationDate',
  'Adventure',
  'Status',
  'AmountToChargeClient',
] as const;

/**
 * The statement of account of an issued settlement, in the bank's layout:
 * semicolon-delimited, UTF-8 with a byte order mark, CRLF line ends, a dot as
 * decimal separator. A header block (issuer, period, invoice number, invoice
 * date, due date, currency, total due), an empty line, then one row per line
 * of the settlement; the total due is the sum of AmountToChargeClient.
 */
export function renderStatement(s: SettlementRecord, lines: LedgerLine[]): Buffer {
  const total = totalOf(lines);
  if (total !== s.total_minor) throw new Error(`settlement ${s.id}: lines sum to ${total}, the settlement says ${s.total_minor}`);
  const rows: string[][] = [
    ['Issuer', s.issuer?.name ?? ''],
    ['IssuerICE', s.issuer?.ice ?? ''],
    ['Partner', s.partner?.legal_name ?? ''],
    ['PeriodStart', periodStart(s.period)],
    ['PeriodEnd', periodEnd(s.period)],
    ['InvoiceNumber', s.number ?? ''],
    ['InvoiceDate', s.issue_date ?? ''],
    ['DueDate', s.due_date ?? ''],
    ['Currency', s.currency],
    ['TotalAmountDue', amountText(total)],
    [],
    [...STATEMENT_COLUMNS],
    ...orderedLines(lines).map((l) => [
      l.booking_number,
      l.partner_reference,
      l.travel_date,
      localDate(new Date(l.confirmed_at)),
      l.adventure,
      lineStatus(l),
      amountText(l.amount_minor),
    ]),
  ];
  // csv-stringify quotes a cell holding the record delimiter (CRLF) but not a bare CR or LF: quote those too, so no cell makes a row.
  const text = stringify(rows, { delimiter: ';', record_delimiter: 'windows', quoted_match: /[\r\n]/, cast: { string: neutralizeCell } });
  return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
}
