import { randomUUID } from 'node:crypto';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { exampleIssuer } from '../../infra/issuer-file';
import { accessKeys } from '../../shared/access/keys';
import { eventKeys } from '../../shared/events/keys';
import { formatMinor, money } from '../../shared/kernel/money';
import { neutralizeCell, renderStatement, STATEMENT_COLUMNS } from '../../shared/settlements/csv';
import { settlementKeys } from '../../shared/settlements/keys';
import { type LedgerBooking, settlementLedger } from '../../shared/settlements/ledger';
import { totalOf } from '../../shared/settlements/lines';
import type { LedgerLine, SettlementRecord } from '../../shared/settlements/model';
import { FakeTable } from './fake-dynamo';

vi.mock('../../shared/db/retry', async (original) => ({ ...(await original<object>()), backoff: async () => undefined }));
process.env.DATA_TABLE = 'data';
process.env.ACCESS_TABLE = 'access';
process.env.SETTLEMENT_BUCKET = 'documents';
// The issuer's identity has no defaults: set as the local runtime sets it.
Object.assign(process.env, exampleIssuer());

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
let db: FakeTable;
/** Set to fail the next issue transaction before (`before`) or after (`after`) it commits: a worker that dies there. */
let crash: 'before' | 'after' | undefined;
/** Runs just before the next issue transaction is applied: a booking that commits in between. */
let interleave: (() => void) | undefined;

beforeEach(() => {
  db = new FakeTable();
  crash = undefined;
  interleave = undefined;
  ddb.reset();
  s3.reset();
  s3.on(PutObjectCommand).resolves({});
  ddb.on(GetCommand).callsFake((i) => ({ Item: db.get(i.Key) }));
  ddb.on(QueryCommand).callsFake((i) => {
    const v = i.ExpressionAttributeValues;
    const filter = v[':id'] ? (x: Record<string, unknown>) => x.id === v[':id'] : undefined;
    return { Items: db.query(v[':p'], v[':pre'] ?? '', filter) };
  });
  // A single conditional write (the DRAFT's creation) fails as DynamoDB's does.
  ddb.on(PutCommand).callsFake((i) => {
    try {
      db.transact([{ Put: i }]);
    } catch {
      throw Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
    }
    return {};
  });
  ddb.on(TransactWriteCommand).callsFake((i) => {
    const issuing = i.TransactItems.some((t: { Put?: { Item: { sk?: string } } }) => t.Put?.Item.sk?.startsWith(settlementKeys.registerPrefix));
    if (issuing && crash === 'before') {
      crash = undefined;
      throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
    }
    if (issuing && interleave) {
      const run = interleave;
      interleave = undefined;
      run();
    }
    db.transact(i.TransactItems);
    if (issuing && crash === 'after') {
      crash = undefined;
      throw Object.assign(new Error('socket hang up after the commit'), { name: 'TimeoutError' });
    }
    return {};
  });
});
afterAll(() => {
  ddb.restore();
  s3.restore();
});

const partner = (id = randomUUID()) => {
  db.put({ ...accessKeys.partner(id), partner_id: id, name: `Bank ${id.slice(0, 4)}`, admin_count: 1, created_at: '2026-01-01T00:00:00.000Z' });
  return id;
};

const booking = (partnerId: string, env: 'live' | 'test', amountMinor: number, at: Date): LedgerBooking => ({
  booking_number: `PTB-${randomUUID().slice(0, 4).toUpperCase()}-${randomUUID().slice(0, 4).toUpperCase()}`,
  partner_id: partnerId,
  env,
  partner_reference: `REF-${randomUUID().slice(0, 6)}`,
  travel_date: '2026-12-24',
  created_at: at.toISOString(),
  adventure: { title: 'Désert d’Erg Chebbi — رحلة' },
  net_amount: money(amountMinor),
});

/** What a booking confirmation commits: the booking's line, in the period that takes lines (the booking itself is not modelled here). */
async function confirm(b: LedgerBooking, at: Date) {
  const { period, items } = await settlementLedger.confirmed(b, at);
  db.transact(Object.values(items));
  b.settlement_period = period;
}
async function cancel(b: LedgerBooking, refundMinor: number, at: Date) {
  db.transact(Object.values(await settlementLedger.cancelled(b, refundMinor, at)));
}

const header = (p: string, env: 'live' | 'test', period: string) => db.get(settlementKeys.header(p, env, period)) as unknown as SettlementRecord | undefined;
const linesOf = (p: string, env: 'live' | 'test', period: string) => db.query(settlementKeys.ledgerPartition(p, env, period)) as unknown as LedgerLine[];

const OCT = new Date('2026-10-15T10:00:00Z');
const NOV = new Date('2026-11-10T10:00:00Z');
const DEC_1 = new Date('2026-12-01T01:30:00Z');

/** A minimal RFC 4180 reader for semicolon-separated text (quotes, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ';') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell || row.length) rows.push([...row, cell]);
  return rows;
}

const toCentimes = (s: string) => {
  const m = /^(-?)(\d+)\.(\d{2})$/.exec(s)!;
  return (m[1] ? -1 : 1) * (Number(m[2]) * 100 + Number(m[3]));
};

describe('the settlement ledger', () => {
  it('keeps every total equal to the sum of its lines for any mix of bookings, cancellations before the issue and adjustments after it', async () => {
    const { issueDraft, storeDocuments } = await import('../../shared/settlements/issue');
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            amount: fc.integer({ min: 1, max: 50_000_000 }),
            fate: fc.constantFrom('kept', 'cancelled-before', 'cancelled-after'),
            refundPercent: fc.integer({ min: 0, max: 100 }),
          }),
          { minLength: 1, maxLength: 25 },
        ),
        async (specs) => {
          db = new FakeTable();
          const p = partner();
          const bookings = specs.map((s) => ({ ...s, b: booking(p, 'live', s.amount, OCT), refund: Math.floor((s.amount * s.refundPercent) / 100) }));
          for (const x of bookings) await confirm(x.b, OCT);
          for (const x of bookings.filter((y) => y.fate === 'cancelled-before')) await cancel(x.b, x.refund, new Date('2026-10-20T10:00:00Z'));
          const { settlement } = await issueDraft(p, 'live', '2026-10', DEC_1);
          const issued = (await storeDocuments(settlement!, undefined, DEC_1)).settlement;
          const frozen = structuredClone(header(p, 'live', '2026-10'));
          const frozenLines = linesOf(p, 'live', '2026-10');
          for (const x of bookings.filter((y) => y.fate === 'cancelled-after')) await cancel(x.b, x.refund, NOV);

          // An issued settlement never changes; the later refunds are November's adjustments.
          expect(header(p, 'live', '2026-10')).toEqual(frozen);
          expect(linesOf(p, 'live', '2026-10')).toEqual(frozenLines);
          // The issued totals are frozen on the settlement; a DRAFT's are summed from its lines when read.
          const { settlementStore } = await import('../../shared/settlements/store');
          const read = (period: string) => settlementStore.get(p, 'live', period);
          for (const period of ['2026-10', '2026-11']) {
            const h = await read(period);
            if (!h) continue;
            const lines = linesOf(p, 'live', period);
            expect(h.total_minor).toBe(totalOf(lines));
            expect(h.line_count).toBe(lines.length);
          }
          const charged = bookings.reduce((n, x) => n + x.amount, 0);
          const refunded = bookings.filter((x) => x.fate !== 'kept').reduce((n, x) => n + x.refund, 0);
          expect(frozen!.total_minor).toBe(charged - bookings.filter((x) => x.fate === 'cancelled-before').reduce((n, x) => n + x.refund, 0));
          expect(((await read('2026-10'))?.total_minor ?? 0) + ((await read('2026-11'))?.total_minor ?? 0)).toBe(charged - refunded);
          // The statement says the same: its total and the sum of its amount column, to the centime.
          const rows = parseCsv(renderStatement(issued, frozenLines).toString('utf8').slice(1));
          const total = rows.find((r) => r[0] === 'TotalAmountDue')![1]!;
          const head = rows.findIndex((r) => r[0] === STATEMENT_COLUMNS[0]);
          const column = rows.slice(head + 1).map((r) => toCentimes(r[6]!));
          expect(column).toHaveLength(specs.length);
          expect(toCentimes(total)).toBe(frozen!.total_minor);
          expect(column.reduce((a, b) => a + b, 0)).toBe(frozen!.total_minor);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it('sends a booking of a month closed early to the next open month', async () => {
    const { issueDraft } = await import('../../shared/settlements/issue');
    const { openPeriodFrom } = await import('../../shared/settlements/ledger');
    const p = partner();
    await confirm(booking(p, 'test', 10_000, NOV), NOV);
    await issueDraft(p, 'test', '2026-11', NOV);
    // A booking confirmed in November after the close goes to December's DRAFT: its transaction holds only its own line...
    const late = booking(p, 'test', 5_000, NOV);
    const { period, items } = await settlementLedger.confirmed(late, NOV);
    expect(period).toBe('2026-12');
    expect(Object.keys(items)).toEqual(['line']);
    db.transact(Object.values(items));
    // ...and the first open period from there is December; November's issued total never moves.
    expect((await openPeriodFrom(p, 'test', '2026-11')).period).toBe('2026-12');
    expect(header(p, 'test', '2026-11')!.total_minor).toBe(10_000);
    expect(linesOf(p, 'test', '2026-12').map((l) => l.amount_minor)).toEqual([5_000]);
  });
});

/** An issued settlement whose issuer and partner names need quoting and neutralizing. */
const issued: SettlementRecord = {
  id: randomUUID(),
  partner_id: 'p',
  env: 'live',
  period: '2026-10',
  status: 'ISSUED',
  currency: 'MAD',
  total_minor: 0,
  line_count: 0,
  booking_count: 0,
  created_at: '',
  updated_at: '',
  number: 'PTS-000001',
  issue_date: '2026-11-01',
  due_date: '2026-11-16',
  issuer: { name: 'Issuer; "SARL"', address: 'a', ice: '1', if: '2', rc: '3', bank: 'b', rib: 'r' },
  partner: { legal_name: '=cmd', address: null, ice: null },
};

/**
 * The oracle of the statement's neutralization, by Unicode property, one code point at a time: what a
 * spreadsheet may pass over (controls, spaces and separators, format characters, default-ignorable code
 * points), and what it may read as a formula sign once its compatibility forms are decomposed.
 */
const INVISIBLE: string[] = [];
const FORMULA_SIGNS: string[] = [];
for (let c = 0; c <= 0x10ffff; c++) {
  if (c >= 0xd800 && c <= 0xdfff) continue;
  const ch = String.fromCodePoint(c);
  if (/[\p{Cc}\p{Z}\p{White_Space}\p{Cf}\p{Default_Ignorable_Code_Point}]/u.test(ch)) INVISIBLE.push(ch);
  else if ('=+-@'.includes(ch.normalize('NFKD')[0]!)) FORMULA_SIGNS.push(ch);
}
const invisible = new Set(INVISIBLE);

/** Whether a spreadsheet would run the cell: a tab or CR first, or a formula sign as its first visible character. */
function runsAsFormula(cell: string): boolean {
  if (cell.startsWith('\t') || cell.startsWith('\r')) return true;
  for (const ch of cell) if (!invisible.has(ch)) return FORMULA_SIGNS.includes(ch);
  return false;
}

describe('the statement CSV', () => {
  it('neutralizes cells a spreadsheet would run as formulas, and leaves numbers alone', () => {
    expect(neutralizeCell('=1+2')).toBe("'=1+2");
    expect(neutralizeCell('+212600000000')).toBe("'+212600000000");
    expect(neutralizeCell('-cmd|calc')).toBe("'-cmd|calc");
    expect(neutralizeCell('@SUM(A1:A2)')).toBe("'@SUM(A1:A2)");
    expect(neutralizeCell('\t=x')).toBe("'\t=x");
    expect(neutralizeCell('\r=x')).toBe("'\r'=x");
    expect(neutralizeCell('-950.00')).toBe('-950.00');
    expect(neutralizeCell('12')).toBe('12');
    expect(neutralizeCell('BANK=1')).toBe('BANK=1');
    // Full-width forms, and a formula behind blanks a spreadsheet may trim (no-break space, BOM, zero-width space).
    for (const v of ['\uff1d1+2', '\uff0b1', '\uff0dcmd', '\uff20SUM(A1)', '\u00a0=1+2', '\ufeff=1+2', '\u200b=1+2', ' =1+2', '\u3000@x']) {
      expect(neutralizeCell(v), JSON.stringify(v)).toBe(`'${v}`);
    }
  });

  it('neutralizes a formula behind a soft hyphen (U+00AD) or U+180E, or written with the small equals sign (U+FE66)', () => {
    for (const v of ['\u00ad=1+2', '\u180e=HYPERLINK("http://evil.example")', '\ufe66cmd|calc', '\u00ad\u180e\ufe66SUM(A1)', '=\u0338x']) {
      expect(neutralizeCell(v), JSON.stringify(v)).toBe(`'${v}`);
    }
    expect(neutralizeCell('\u00adBANK')).toBe('\u00adBANK');
  });

  it('never lets a text cell start a formula, whatever the partner reference or title, and reads back to the same values', () => {
    // Any invisible character (line breaks aside: the next tests hold them), any form of a formula sign, and plain text.
    const unit = fc.oneof(
      fc.constantFrom(...INVISIBLE.filter((ch) => ch !== '\n' && ch !== '\r')),
      fc.constantFrom(...FORMULA_SIGNS),
      fc.constantFrom('a', '1', '.', ' '),
    );
    const text = fc.string({ maxLength: 20, unit });
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            ref: fc.oneof(fc.string({ maxLength: 20 }), text),
            title: fc.oneof(fc.string({ maxLength: 20 }), text),
            amount: fc.integer({ min: -1_000_000, max: 1_000_000 }),
          }),
          {
            minLength: 1,
            maxLength: 10,
          },
        ),
        (rows) => {
          const lines: LedgerLine[] = rows.map((r, i) => ({
            kind: 'BOOKING',
            booking_number: `PTB-0000-000${i}`,
            partner_reference: r.ref,
            travel_date: '2026-10-30',
            confirmed_at: '2026-10-02T10:00:00.000Z',
            adventure: r.title,
            status: 'CONFIRMED',
            amount_minor: r.amount,
            charged_minor: r.amount,
            refund_minor: 0,
            updated_at: '',
          }));
          const s = { ...issued, total_minor: totalOf(lines) };
          const text = renderStatement(s, lines).toString('utf8');
          expect(text.startsWith('\ufeff')).toBe(true);
          const parsed = parseCsv(text.slice(1));
          for (const cell of parsed.flat()) expect(runsAsFormula(cell) && !/^-?\d+(\.\d+)?$/.test(cell), JSON.stringify(cell)).toBe(false);
          const body = parsed.slice(parsed.findIndex((r) => r[0] === STATEMENT_COLUMNS[0]) + 1);
          // A text cell reads back as written, with a quote in front when it would start a formula.
          const asWritten = (v: string) => (runsAsFormula(v) && !/^-?\d+(\.\d+)?$/.test(v) ? `'${v}` : v);
          body.forEach((r, i) => {
            expect(r[1]).toBe(asWritten(rows[i]!.ref));
            expect(r[4]).toBe(asWritten(rows[i]!.title));
            expect(r[6]).toBe(formatMinor(rows[i]!.amount));
          });
          expect(parsed.find((r) => r[0] === 'Partner')![1]).toBe("'=cmd");
          expect(parsed.find((r) => r[0] === 'Issuer')![1]).toBe('Issuer; "SARL"');
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** The three payloads of issue 22: a line break, then a formula that would become a row of its own. */
const FORGED = ['x\n=1+1', "\n-2+3+cmd|' /C calc'!A0", 'x\r@SUM(1+1)'];

/**
 * Parsed as RFC 4180 with `;`, every record, the empty line included, and as spreadsheets read it: an
 * unquoted CR or LF ends a record as CRLF does.
 */
const statementRows = (csv: Buffer): string[][] =>
  parse(csv, { delimiter: ';', record_delimiter: ['\r\n', '\n', '\r'], bom: true, relax_column_count: true, skip_empty_lines: false });

/** The statement's header block (10 rows), the empty line and the column names. */
const HEAD_ROWS = 12;

describe('line breaks in statement cells', () => {
  const settlement = (lines: LedgerLine[]): SettlementRecord => ({ ...issued, total_minor: totalOf(lines), line_count: lines.length });

  it('quote a bare LF or CR and neutralize every line, so the three forged references stay one row each', () => {
    const lines: LedgerLine[] = FORGED.map((ref, i) => ({
      kind: 'BOOKING',
      booking_number: `PTB-0000-000${i}`,
      partner_reference: ref,
      travel_date: '2026-12-30',
      confirmed_at: '2026-11-24T10:00:00.000Z',
      adventure: `Title\n=HYPERLINK("http://evil.example")\r+${i}`,
      status: 'CONFIRMED',
      amount_minor: 10_000,
      charged_minor: 10_000,
      refund_minor: 0,
      updated_at: '',
    }));
    const rows = statementRows(renderStatement(settlement(lines), lines));
    expect(rows).toHaveLength(HEAD_ROWS + FORGED.length);
    const body = rows.slice(HEAD_ROWS);
    expect(body.map((r) => r[0])).toEqual(['PTB-0000-0000', 'PTB-0000-0001', 'PTB-0000-0002']);
    for (const r of body) expect(r).toHaveLength(STATEMENT_COLUMNS.length);
    expect(body.map((r) => r[1])).toEqual(["x\n'=1+1", "\n'-2+3+cmd|' /C calc'!A0", "x\r'@SUM(1+1)"]);
    expect(body[0]![4]).toBe(`Title\n'=HYPERLINK("http://evil.example")\r'+0`);
    // No line of any cell, read by a reader that splits on every line break, starts a formula.
    for (const cell of rows.flat())
      for (const line of cell.split(/\r\n|\r|\n/)) expect(/^[=+\-@\t]/.test(line) && !/^-?\d+(\.\d+)?$/.test(line), JSON.stringify(cell)).toBe(false);
  });

  it('keep references stored before control characters were refused in their row, through the issue of a settlement', async () => {
    const { issueDraft, storeDocuments } = await import('../../shared/settlements/issue');
    const p = partner();
    for (const ref of FORGED) {
      const b = booking(p, 'test', 10_000, NOV);
      b.partner_reference = ref;
      await confirm(b, NOV);
    }
    const { settlement } = await issueDraft(p, 'test', '2026-11', DEC_1);
    await storeDocuments(settlement!, undefined, DEC_1);
    const csv = s3
      .commandCalls(PutObjectCommand)
      .map((c) => c.args[0].input)
      .find((i) => i.ContentType?.startsWith('text/csv'));
    const rows = statementRows(Buffer.from(csv!.Body as Uint8Array));
    expect(rows).toHaveLength(HEAD_ROWS + FORGED.length);
    expect(
      rows
        .slice(HEAD_ROWS)
        .map((r) => r[1])
        .sort(),
    ).toEqual(["\n'-2+3+cmd|' /C calc'!A0", "x\n'=1+1", "x\r'@SUM(1+1)"].sort());
  });
});

describe('numbering', () => {
  const draftFor = async (env: 'live' | 'test' = 'live') => {
    const p = partner();
    await confirm(booking(p, env, 12_345, OCT), OCT);
    return p;
  };
  const registerOf = (env: 'live' | 'test', p = '') =>
    db.query(settlementKeys.seriesPartition(env, p), settlementKeys.registerPrefix).map((r) => [r.seq, r.number, r.settlement_id]);

  it('survives a crash before and after the issue commits: never a gap, never a number twice, documents and event once', async () => {
    const { settleTenant } = await import('../../shared/settlements/issue');
    const [a, b, c, d] = [await draftFor(), await draftFor(), await draftFor(), await draftFor()];

    // A worker dies before its transaction commits: nothing moved, the retry takes number 1.
    crash = 'before';
    await expect(settleTenant(a, 'live', '2026-10', undefined, DEC_1)).rejects.toThrow(/socket hang up/);
    expect(header(a, 'live', '2026-10')!.status).toBe('DRAFT');
    expect(db.get(settlementKeys.counter('live', ''))).toBeUndefined();
    expect((await settleTenant(a, 'live', '2026-10', undefined, DEC_1)).settlements.map((s) => s.number)).toEqual(['PTS-000001']);

    // A worker dies right after the commit: the number and the status moved together; the retry finishes the documents only.
    crash = 'after';
    await expect(settleTenant(b, 'live', '2026-10', undefined, DEC_1)).rejects.toThrow(/after the commit/);
    expect(header(b, 'live', '2026-10')).toMatchObject({ status: 'ISSUED', number: 'PTS-000002', documents_status: 'PENDING' });
    const retried = await settleTenant(b, 'live', '2026-10', undefined, DEC_1);
    expect(retried.settlements.map((s) => [s.number, s.documents_status])).toEqual([['PTS-000002', 'READY']]);
    expect((await settleTenant(b, 'live', '2026-10', undefined, DEC_1)).settlements).toEqual([]);
    const issuedEvents = db.query(eventKeys.partition(b, 'live')).filter((e) => (e.event as { type: string }).type === 'settlement.issued');
    expect(issuedEvents).toHaveLength(1);

    // Two issues at once race for number 3: one gets it, the other retries and gets 4.
    const both = await Promise.all([settleTenant(c, 'live', '2026-10', undefined, DEC_1), settleTenant(d, 'live', '2026-10', undefined, DEC_1)]);
    expect(both.map((r) => r.settlements[0]!.number).sort()).toEqual(['PTS-000003', 'PTS-000004']);

    expect(db.get(settlementKeys.counter('live', ''))!.last).toBe(4);
    const register = registerOf('live');
    expect(register.map((r) => r[0])).toEqual([1, 2, 3, 4]);
    expect(new Set(register.map((r) => r[2])).size).toBe(4);
    for (const p of [a, b, c, d]) expect(header(p, 'live', '2026-10')!.documents_status).toBe('READY');
  });

  it('sends a booking confirmed while its month is closing to the next month, and issues the totals of the lines it summed', async () => {
    const { issueDraft } = await import('../../shared/settlements/issue');
    const { settlementStore } = await import('../../shared/settlements/store');
    const p = await draftFor();
    // The close has begun (a run stopped after it, or is waiting out the grace): an October booking goes to November.
    expect(await settlementStore.startClosing(header(p, 'live', '2026-10')!, DEC_1)).toBe(DEC_1.toISOString());
    const late = booking(p, 'live', 777, OCT);
    await confirm(late, OCT);
    expect(late.settlement_period).toBe('2026-11');
    const { settlement } = await issueDraft(p, 'live', '2026-10', DEC_1);
    expect(settlement).toMatchObject({ status: 'ISSUED', total_minor: 12_345, line_count: 1, booking_count: 1, number: 'PTS-000001' });
    expect(header(p, 'live', '2026-10')).toMatchObject({ total_minor: 12_345, line_count: 1, closing_at: DEC_1.toISOString() });
    expect(await settlementStore.get(p, 'live', '2026-11')).toMatchObject({ status: 'DRAFT', total_minor: 777, line_count: 1 });
    expect(db.get(settlementKeys.counter('live', ''))!.last).toBe(1);
  });

  it('keeps a series per sandbox tenant, with its prefix, apart from the live series', async () => {
    const { settleTenant } = await import('../../shared/settlements/issue');
    const live = await draftFor('live');
    const [t1, t2] = [await draftFor('test'), await draftFor('test')];
    expect((await settleTenant(t1, 'test', '2026-10', undefined, DEC_1)).settlements[0]!.number).toBe('TEST-PTS-000001');
    expect((await settleTenant(t2, 'test', '2026-10', undefined, DEC_1)).settlements[0]!.number).toBe('TEST-PTS-000001');
    expect((await settleTenant(live, 'live', '2026-10', undefined, DEC_1)).settlements[0]!.number).toBe('PTS-000001');
  });

  it('issues nothing for a month without bookings, and never a DRAFT of a later month', async () => {
    const { settleTenant } = await import('../../shared/settlements/issue');
    const p = partner();
    expect((await settleTenant(p, 'live', '2026-10', undefined, DEC_1)).settlements).toEqual([]);
    await confirm(booking(p, 'live', 100, NOV), NOV);
    expect((await settleTenant(p, 'live', '2026-10', undefined, DEC_1)).settlements).toEqual([]);
    expect(header(p, 'live', '2026-11')!.status).toBe('DRAFT');
    expect(db.get(settlementKeys.counter('live', ''))).toBeUndefined();
  });
});
