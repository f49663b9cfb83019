import { stringify } from 'csv-stringify/sync';
import { localDate } from '../kernel/time';
import { amountText, lineStatus, orderedLines, totalOf } from './lines';
import { type LedgerLine, type SettlementRecord, SPECIMEN_MARK } from './model';
import { periodEnd, periodStart } from './period';

/** A plain decimal number, as the amount column holds: not a formula even when negative. */
const NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * What a spreadsheet may pass over before a formula, decided by Unicode property rather than by a list, so
 * that none is forgotten: controls (\p{Cc}), spaces and separators of any kind (\p{Z}, \p{White_Space}: no-break,
 * ideographic...), format characters (\p{Cf}: soft hyphen U+00AD, U+180E, zero-width characters, the byte order
 * mark) and every other default-ignorable code point (fillers, variation selectors), which render as nothing.
 */
const SKIPPED = String.raw`[\p{Cc}\p{Z}\p{White_Space}\p{Cf}\p{Default_Ignorable_Code_Point}]`;

/**
 * A line a spreadsheet runs as a formula: it starts with a tab or a carriage return (OWASP's list), or its first
 * character past SKIPPED is =, +, - or @ once compatibility forms are decomposed (NFKD: full-width U+FF1D, small
 * U+FE66, superscript U+207A... fold to ASCII, as some spreadsheets fold them). NFKD, never NFKC: composition would
 * turn `=` and a combining U+0338 into `≠` and hide the `=` a spreadsheet reads.
 */
const FORMULA_START = new RegExp(String.raw`^[\t\r]|^${SKIPPED}*[=+\-@]`, 'u');
const neutralizeLine = (line: string) => (FORMULA_START.test(line.normalize('NFKD')) && !NUMBER.test(line) ? `'${line}` : line);

/**
 * OWASP CSV injection: a cell that a spreadsheet would run as a formula (FORMULA_START: =, +, -, @ or a
 * compatibility form of them, also after invisible characters; a tab or a carriage return) is prefixed with
 * a single quote, so it is shown as text. So is every line of a cell that holds line breaks (text stored
 * before control characters were refused), in case a reader splits it. Plain numbers are left as they are.
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

/** One statement row: the columns of STATEMENT_COLUMNS, neutralized, semicolon-separated, CRLF-terminated. */
export function statementRow(l: LedgerLine): string {
  return csvText([
    [l.booking_number, l.partner_reference, l.travel_date, localDate(new Date(l.confirmed_at)), l.adventure, lineStatus(l), amountText(l.amount_minor)],
  ]);
}

// csv-stringify quotes a cell holding the record delimiter (CRLF) but not a bare CR or LF: quote those too, so no cell makes a row.
const csvText = (rows: string[][]) =>
  stringify(rows, { delimiter: ';', record_delimiter: 'windows', quoted_match: /[\r\n]/, cast: { string: neutralizeCell } });

/**
 * The statement of account of an issued settlement, in the bank's layout:
 * semicolon-delimited, UTF-8 with a byte order mark, CRLF line ends, a dot as
 * decimal separator. A header block (issuer, period, invoice number, invoice
 * date, due date, currency, total due), an empty line, then one row per line
 * of the settlement (`rows`, already rendered by `statementRow`, in the
 * documents' order); the total due is the sum of AmountToChargeClient.
 * Yielded piece by piece, so a statement of any size streams to S3.
 */
export function* statementChunks(s: SettlementRecord, totalMinor: number, rows: Iterable<string>): Generator<Buffer> {
  if (totalMinor !== s.total_minor) throw new Error(`settlement ${s.id}: lines sum to ${totalMinor}, the settlement says ${s.total_minor}`);
  const head = csvText([
    // A specimen says so in the Issuer cell: no row is added, so the header block keeps the bank's layout.
    ['Issuer', s.issuer?.specimen ? `${s.issuer.name} (${SPECIMEN_MARK})` : (s.issuer?.name ?? '')],
    ['IssuerICE', s.issuer?.ice ?? ''],
    ['Partner', s.partner?.legal_name ?? ''],
    ['PeriodStart', periodStart(s.period)],
    ['PeriodEnd', periodEnd(s.period)],
    ['InvoiceNumber', s.number ?? ''],
    ['InvoiceDate', s.issue_date ?? ''],
    ['DueDate', s.due_date ?? ''],
    ['Currency', s.currency],
    ['TotalAmountDue', amountText(totalMinor)],
    [],
    [...STATEMENT_COLUMNS],
  ]);
  yield Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(head, 'utf8')]);
  let batch: string[] = [];
  for (const r of rows) {
    batch.push(r);
    if (batch.length === 1000) {
      yield Buffer.from(batch.join(''), 'utf8');
      batch = [];
    }
  }
  if (batch.length) yield Buffer.from(batch.join(''), 'utf8');
}

/** The whole statement of a few lines, in memory (tests, small settlements). */
export function renderStatement(s: SettlementRecord, lines: LedgerLine[]): Buffer {
  return Buffer.concat([...statementChunks(s, totalOf(lines), orderedLines(lines).map(statementRow))]);
}
