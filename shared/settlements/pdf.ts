import PDFDocument from 'pdfkit';
import { localDate } from '../kernel/time';
import { SettlementDigest, type Subtotal } from './digest';
import { fonts } from './fonts';
import { amountText, lineStatus, orderedLines } from './lines';
import { type LedgerLine, type SettlementRecord, SPECIMEN_MARK } from './model';
import { periodEnd, periodStart } from './period';

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 48;
const WIDTH = A4.width - 2 * MARGIN;

/**
 * Columns of the booking rows: label, width (points), alignment, and whether
 * a long value wraps onto more lines (finance reconciles on the partner's
 * reference: it is printed whole, never cut).
 */
const COLUMNS: { label: string; width: number; align: 'left' | 'right'; wrap?: true }[] = [
  { label: 'Booking', width: 72, align: 'left' },
  { label: 'Partner reference', width: 88, align: 'left', wrap: true },
  { label: 'Travel date', width: 52, align: 'left' },
  { label: 'Confirmed', width: 52, align: 'left' },
  { label: 'Adventure', width: 116, align: 'left' },
  { label: 'Status', width: 52, align: 'left' },
  { label: 'Amount (MAD)', width: WIDTH - 432, align: 'right' },
];

/** Thousands grouped with a thin space, a dot for decimals: 12 345.50. */
export const printedAmount = (minor: number) => amountText(minor).replace(/\B(?=(\d{3})+\.)/g, '\u202f');

type Doc = InstanceType<typeof PDFDocument>;

function cells(l: LedgerLine): string[] {
  const status = lineStatus(l);
  return [
    l.booking_number,
    l.partner_reference,
    l.travel_date,
    localDate(new Date(l.confirmed_at)),
    l.adventure,
    status === 'ADJUSTMENT' ? 'Adjust.' : status === 'CANCELLED' ? 'Cancelled' : status === 'COMPLETED' ? 'Completed' : 'Confirmed',
    printedAmount(l.amount_minor),
  ];
}

const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;

/**
 * The words of a text in the order they are drawn, left to right. fontkit
 * shapes each Arabic word and lays its letters out right to left, but pdfkit
 * does not reorder words: runs of right-to-left words are reversed here, and
 * the runs themselves when the text starts right to left (a simplified
 * Unicode bidi, enough for names and titles).
 */
export function visualWords(text: string): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  if (!RTL.test(text)) return words;
  const runs: { rtl: boolean; words: string[] }[] = [];
  for (const w of words) {
    const rtl = RTL.test(w);
    const last = runs.at(-1);
    if (last && last.rtl === rtl) last.words.push(w);
    else runs.push({ rtl, words: [w] });
  }
  for (const r of runs) if (r.rtl) r.words.reverse();
  if (runs[0]?.rtl) runs.reverse();
  return runs.flatMap((r) => r.words);
}

/** Fitting a text is measured once per document, font, size and width: titles and dates repeat on thousands of rows. */
const fits = new WeakMap<Doc, Map<string, { t: string; w: number }>>();

function fitted(doc: Doc, text: string, width: number): { t: string; w: number } {
  let cache = fits.get(doc);
  if (!cache) {
    cache = new Map();
    fits.set(doc, cache);
  }
  const key = `${(doc as unknown as { _font: { name: string } })._font.name}|${(doc as unknown as { _fontSize: number })._fontSize}|${width}|${text}`;
  let hit = cache.get(key);
  if (!hit) {
    let t = text;
    if (doc.widthOfString(t) > width) {
      // The longest prefix that fits with its ellipsis (binary search).
      let lo = 0;
      let hi = text.length;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (doc.widthOfString(`${text.slice(0, mid).trimEnd()}…`) <= width) lo = mid;
        else hi = mid - 1;
      }
      t = `${text.slice(0, lo).trimEnd()}…`;
    }
    hit = { t, w: doc.widthOfString(t) };
    cache.set(key, hit);
  }
  return hit;
}

/** Text on one line cut to `width` with an ellipsis (a table cell that does not wrap keeps its row's height). */
function oneLine(doc: Doc, text: string, x: number, y: number, width: number, align: 'left' | 'right' = 'left') {
  const { t, w } = fitted(doc, text, width);
  let at = x + (align === 'right' ? width - w : 0);
  if (!RTL.test(t)) {
    doc.text(t, at, y, { lineBreak: false });
    return;
  }
  const space = doc.widthOfString(' ');
  for (const w of visualWords(t)) {
    doc.text(w, at, y, { lineBreak: false });
    at += doc.widthOfString(w) + space;
  }
}

/** Where a line may break: after a space or a separator a reference is commonly made of. */
const BREAK_AFTER = /[\s\-_/.:,;]/;

/**
 * A text as the lines that each fit `width`: broken after a space or a
 * separator when the line has one, inside a word when it must. Every
 * character is kept.
 */
function wrappedLines(doc: Doc, text: string, width: number): string[] {
  const lines: string[] = [];
  let rest = text.trim();
  while (rest && doc.widthOfString(rest) > width) {
    // The longest prefix that fits (binary search), at least one character.
    let lo = 1;
    let hi = rest.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (doc.widthOfString(rest.slice(0, mid)) <= width) lo = mid;
      else hi = mid - 1;
    }
    let cut = lo;
    for (let i = lo - 1; i > 0; i--) {
      if (BREAK_AFTER.test(rest[i]!)) {
        cut = i + 1;
        break;
      }
    }
    lines.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest || lines.length === 0) lines.push(rest);
  return lines;
}

const ROW_HEIGHT = 12;
/** The pitch of the wrapped lines of a cell, 7.5 pt text. */
const WRAPPED_LINE = 9;

/** The lines of each cell of a row: one (cut with an ellipsis) unless its column wraps. */
function rowLines(doc: Doc, values: string[], bold: boolean): string[][] {
  doc.font(bold ? 'bold' : 'regular').fontSize(7.5);
  return COLUMNS.map((c, i) => (c.wrap ? wrappedLines(doc, values[i] ?? '', c.width - 4) : [values[i] ?? '']));
}

const heightOf = (cells: string[][]) => ROW_HEIGHT + (Math.max(...cells.map((c) => c.length)) - 1) * WRAPPED_LINE;

/** One table row from its cells' lines; returns its height. */
function row(doc: Doc, cells: string[][], y: number, bold = false): number {
  doc.font(bold ? 'bold' : 'regular').fontSize(7.5);
  let x = MARGIN;
  COLUMNS.forEach((c, i) => {
    for (const [n, line] of (cells[i] ?? []).entries()) oneLine(doc, line, x + 2, y + n * WRAPPED_LINE, c.width - 4, c.align);
    x += c.width;
  });
  return heightOf(cells);
}

/** The booking rows from `y`, adding pages as needed (headers repeated); returns where the table ends. */
function table(doc: Doc, lines: LedgerLine[], y: number, title?: string): number {
  const header = (at: number) => {
    doc.rect(MARGIN, at - 2, WIDTH, ROW_HEIGHT + 1).fill('#eeeeee');
    doc.fillColor('black');
    return (
      at +
      row(
        doc,
        rowLines(
          doc,
          COLUMNS.map((c) => c.label),
          true,
        ),
        at,
        true,
      ) +
      2
    );
  };
  if (title) {
    doc.font('bold').fontSize(11).text(title, MARGIN, y);
    y = doc.y + 6;
  }
  y = header(y);
  for (const l of lines) {
    const drawn = rowLines(doc, cells(l), false);
    if (y + heightOf(drawn) - ROW_HEIGHT > A4.height - MARGIN - 40) {
      doc.addPage();
      y = header(MARGIN);
    }
    y += row(doc, drawn, y);
  }
  doc
    .moveTo(MARGIN, y)
    .lineTo(MARGIN + WIDTH, y)
    .lineWidth(0.5)
    .stroke();
  return y + 4;
}

/** A table of subtotals (label, lines, amount) from `y`, adding pages as needed; returns where it ends. */
function subtotals(doc: Doc, title: string, rows: Subtotal[], y: number): number {
  if (y > A4.height - MARGIN - 80) {
    doc.addPage();
    y = MARGIN;
  }
  doc.font('bold').fontSize(10).text(title, MARGIN, y);
  y = doc.y + 4;
  doc.font('regular').fontSize(8.5);
  for (const r of rows) {
    if (y > A4.height - MARGIN - 30) {
      doc.addPage();
      y = MARGIN;
      doc.font('regular').fontSize(8.5);
    }
    oneLine(doc, r.label, MARGIN, y, WIDTH - 200);
    oneLine(doc, `${r.count}`, MARGIN + WIDTH - 200, y, 70, 'right');
    oneLine(doc, `${printedAmount(r.minor)} MAD`, MARGIN + WIDTH - 120, y, 120, 'right');
    y += 12;
  }
  return y + 8;
}

const byLabel = (m: Map<string, Subtotal>) => [...m.values()].sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));

/**
 * The summary of a large settlement: lines and amounts per status, then
 * subtotals per adventure and per week of confirmation. Every line is in the
 * statement CSV, which the invoice refers to (an invoice of thousands of
 * pages serves nobody).
 */
function summary(doc: Doc, s: SettlementRecord, d: SettlementDigest, y: number): number {
  const labels: Record<string, string> = {
    CONFIRMED: 'Bookings confirmed',
    COMPLETED: 'Bookings completed',
    CANCELLED: 'Bookings cancelled before this invoice (fees kept)',
    ADJUSTMENT: 'Adjustments: refunds of bookings invoiced earlier',
  };
  doc.font('bold').fontSize(11).text('Summary', MARGIN, y);
  y = doc.y + 6;
  doc.fontSize(9);
  for (const k of ['CONFIRMED', 'COMPLETED', 'CANCELLED', 'ADJUSTMENT']) {
    const g = d.byStatus.get(k);
    if (!g) continue;
    doc.font('regular').text(`${labels[k]}: ${g.count}`, MARGIN, y, { width: WIDTH - 120 });
    doc.text(`${printedAmount(g.minor)} MAD`, MARGIN + WIDTH - 120, y, { width: 120, align: 'right' });
    y += 14;
  }
  doc
    .font('regular')
    .fontSize(8.5)
    .fillColor('#444444')
    .text(
      `The ${d.lineCount} lines of this invoice, one per booking and adjustment, are listed in its statement of account, statement-${s.number}.csv ` +
        '(GET /v1/settlements/{id}/statement.csv), whose amounts sum to the total due. Subtotals follow.',
      MARGIN,
      y + 2,
      { width: WIDTH },
    );
  doc.fillColor('black');
  y = doc.y + 10;
  const weeks = byLabel(d.byWeek).map((w) => ({
    ...w,
    label: w.label === 'ADJUSTMENT' ? 'Adjustments (refunds of bookings invoiced earlier)' : `Week of ${w.label}`,
  }));
  y = subtotals(doc, 'Per week of confirmation (Monday, Morocco time)', weeks, y);
  return subtotals(doc, 'Per adventure', byLabel(d.byAdventure), y);
}

/**
 * The invoice of an issued settlement (A4, DejaVu Sans): issuer and partner
 * identities, number, issue and due dates, period, the rows (or a summary and
 * an annex beyond `maxRows`), the total due and the payment instructions.
 * Sandbox invoices are marked as tests, specimens (the example issuer) as
 * not valid invoices, on every page. Deterministic for a given input, so a
 * job that resumes after a crash renders the same document.
 */
export async function renderInvoice(s: SettlementRecord, lines: LedgerLine[], maxRows: number): Promise<Buffer> {
  const d = new SettlementDigest(maxRows);
  d.add(lines);
  return renderInvoiceOf(s, d);
}

/**
 * The invoice from a digest of the settlement's lines: every line when there
 * are at most the digest's `keepLines`, otherwise the summary and subtotals.
 * Its size does not grow with the number of bookings beyond that.
 */
export async function renderInvoiceOf(s: SettlementRecord, d: SettlementDigest): Promise<Buffer> {
  const total = d.total;
  if (total !== s.total_minor) throw new Error(`settlement ${s.id}: lines sum to ${total}, the settlement says ${s.total_minor}`);
  const f = fonts();
  const issuedAt = new Date(s.issued_at ?? s.updated_at);
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    font: f.regular as unknown as string,
    info: {
      Title: `Invoice ${s.number}`,
      Author: s.issuer?.name,
      Subject: `Settlement ${s.period}`,
      CreationDate: issuedAt,
      ModDate: issuedAt,
    },
  });
  doc.registerFont('regular', f.regular);
  doc.registerFont('bold', f.bold);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const issuer = s.issuer!;
  const partner = s.partner!;
  const test = s.env === 'test';
  const specimen = issuer.specimen === true;

  // Issuer (left) and invoice facts (right).
  doc.font('bold').fontSize(13).text(issuer.name, MARGIN, MARGIN, { width: 280 });
  doc.font('regular').fontSize(8.5).text(issuer.address, { width: 280 });
  doc.text(`ICE ${issuer.ice}   ·   IF ${issuer.if}`, { width: 280 });
  doc.text(`RC ${issuer.rc}`, { width: 280 });
  const left = doc.y;
  doc
    .font('bold')
    .fontSize(16)
    .text(test ? 'TEST INVOICE' : 'INVOICE', MARGIN + 300, MARGIN, { width: WIDTH - 300, align: 'right' });
  doc.font('regular').fontSize(9.5);
  const facts: [string, string][] = [
    ['N°', s.number!],
    ['Issue date', s.issue_date!],
    ['Due date', s.due_date!],
    ['Period', `${periodStart(s.period)} to ${periodEnd(s.period)}`],
  ];
  for (const [k, v] of facts) doc.text(`${k}: ${v}`, MARGIN + 300, doc.y + 1, { width: WIDTH - 300, align: 'right' });
  let y = Math.max(left, doc.y) + 16;

  /** A one-line coloured banner across the page at y; the next content starts 30 pt lower. */
  const banner = (background: string, color: string, text: string) => {
    doc.rect(MARGIN, y, WIDTH, 20).fill(background);
    doc
      .fillColor(color)
      .font('bold')
      .fontSize(9)
      .text(text, MARGIN + 8, y + 5.5, { width: WIDTH - 16 });
    doc.fillColor('black');
    y += 30;
  };
  if (specimen) banner('#fdecea', '#b71c1c', `${SPECIMEN_MARK}: the issuer above is an example company; nothing is due.`);
  if (test) banner('#fff3cd', '#7a5b00', 'Sandbox settlement (test mode): not a tax invoice, nothing is due.');

  // Bill to.
  doc.font('bold').fontSize(9).fillColor('#444444').text('Billed to', MARGIN, y);
  y = doc.y + 2;
  doc.fillColor('black').font('bold').fontSize(11);
  oneLine(doc, partner.legal_name, MARGIN, y, 320);
  y += 15;
  doc.font('regular').fontSize(9);
  for (const l of [partner.address, partner.ice ? `ICE ${partner.ice}` : null]) {
    if (!l) continue;
    oneLine(doc, l, MARGIN, y, 320);
    y += 12;
  }
  y += 12;

  doc
    .font('regular')
    .fontSize(9)
    .text(
      `Settlement of the bookings confirmed from ${periodStart(s.period)} to ${periodEnd(s.period)} (Morocco time): the amounts charged to your customers, ` +
        'less what was refunded on cancellations. Amounts in Moroccan dirhams (MAD).' +
        (test ? ' Sandbox: bookings confirmed after an earlier month was closed early by a test helper are settled here too.' : ''),
      MARGIN,
      y,
      { width: WIDTH },
    );
  y = doc.y + 10;

  y = d.lines ? table(doc, orderedLines(d.lines), y) : summary(doc, s, d, y);

  // Total and payment instructions, kept together.
  if (y > A4.height - MARGIN - 150) {
    doc.addPage();
    y = MARGIN;
  }
  doc.rect(MARGIN + WIDTH - 230, y + 4, 230, 24).fill('#f2f2f2');
  doc
    .fillColor('black')
    .font('bold')
    .fontSize(11)
    .text(`Total due: ${printedAmount(total)} MAD`, MARGIN + WIDTH - 225, y + 10, { width: 220, align: 'right' });
  y += 40;
  doc.font('bold').fontSize(9.5).text('Payment instructions', MARGIN, y);
  doc
    .font('regular')
    .fontSize(9)
    .text(
      specimen
        ? "Specimen: make no transfer. The bank account of a valid invoice is the issuer's own."
        : test
          ? 'Test mode: make no transfer. In production this block names the bank account to pay by transfer, quoting the invoice number.'
          : `Pay ${printedAmount(total)} MAD by bank transfer by ${s.due_date} to ${issuer.name}, ${issuer.bank}, RIB ${issuer.rib}, ` +
            `quoting invoice N° ${s.number} as the transfer reference.`,
      MARGIN,
      doc.y + 2,
      { width: WIDTH },
    );
  doc.text(`${s.booking_count} booking(s), ${s.line_count} line(s). The statement CSV of this invoice lists the same lines.`, MARGIN, doc.y + 4, {
    width: WIDTH,
  });

  // Footer on every page.
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    // Below the bottom margin: without this pdfkit would start a new page.
    doc.page.margins.bottom = 0;
    if (specimen) {
      // Across the page, over the content but light enough to read it through.
      doc.save().rotate(-40, { origin: [A4.width / 2, A4.height / 2] });
      doc
        .font('bold')
        .fontSize(90)
        .fillColor('#b71c1c')
        .fillOpacity(0.14)
        .text('SPECIMEN', 0, A4.height / 2 - 45, { width: A4.width, align: 'center', lineBreak: false });
      doc.restore();
    }
    doc
      .font('regular')
      .fontSize(7.5)
      .fillColor('#666666')
      .text(
        `${specimen ? `${SPECIMEN_MARK} · ` : ''}${issuer.name} · Invoice N° ${s.number} · Page ${i + 1} / ${range.count}`,
        MARGIN,
        A4.height - MARGIN + 14,
        {
          width: WIDTH,
          align: 'center',
          lineBreak: false,
        },
      );
  }
  doc.end();
  return done;
}
