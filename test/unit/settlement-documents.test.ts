import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SettlementRecord } from '../../shared/settlements/model';

// Figures are off in the unit project: the one this file checks is observed where it is recorded.
vi.mock(import('../../shared/kernel/metrics'), async (original) => ({ ...(await original()), recordMultipartAbortFailure: vi.fn() }));

// Answers above this size leave through a presigned link (Lambda answers are capped at 6 MB); small here to test both sides.
process.env.SETTLEMENT_INLINE_MAX_BYTES = '1000';
process.env.SETTLEMENT_BUCKET = 'documents';
process.env.DATA_TABLE = 'data';
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID ??= 'test';
process.env.AWS_SECRET_ACCESS_KEY ??= 'test';

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
afterAll(() => {
  ddb.restore();
  s3.restore();
});

const tenant = { partnerId: 'p1', env: 'live' as const, memberId: 'm', role: 'FINANCE' };
const record = (invoiceBytes: number, status: SettlementRecord['status'] = 'ISSUED'): SettlementRecord => ({
  id: '7c0e9c1e-2f57-4d0b-9a43-1f5b8f1f6a11',
  partner_id: 'p1',
  env: 'live',
  period: '2026-10',
  status,
  currency: 'MAD',
  total_minor: 100,
  line_count: 1,
  booking_count: 1,
  created_at: '',
  updated_at: '',
  number: 'PTS-000007',
  documents_status: 'READY',
  documents: {
    invoice: { key: 'settlements/live/p1/2026-10/PTS-000007/invoice.pdf', bytes: invoiceBytes, sha256: 'x' },
    statement: { key: 'settlements/live/p1/2026-10/PTS-000007/statement.csv', bytes: 10, sha256: 'y' },
  },
});

beforeEach(() => {
  ddb.reset();
  s3.reset();
});

describe('serving settlement documents', () => {
  it('answers a document that fits inline as a base64 attachment', async () => {
    const { documentResult, settlementDocument } = await import('../../shared/settlements/read');
    ddb.on(QueryCommand).resolves({ Items: [record(500)] });
    s3.on(GetObjectCommand).resolves({ Body: { transformToByteArray: async () => new Uint8Array(Buffer.from('%PDF-1.3 ...')) } as never });
    const r = documentResult(await settlementDocument(tenant, record(500).id, 'invoice'), 'application/pdf');
    expect(r).toMatchObject({
      raw: { contentType: 'application/pdf', isBase64: true },
      headers: { 'content-disposition': 'attachment; filename="invoice-PTS-000007.pdf"' },
    });
    expect(Buffer.from((r as { raw: { body: string } }).raw.body, 'base64').toString()).toBe('%PDF-1.3 ...');
  });

  it('answers a document too large for a Lambda answer with 303 to a presigned S3 URL valid 5 minutes', async () => {
    const { documentResult, settlementDocument } = await import('../../shared/settlements/read');
    ddb.on(QueryCommand).resolves({ Items: [record(5_000_000)] });
    const r = documentResult(await settlementDocument(tenant, record(1).id, 'invoice'), 'application/pdf');
    expect(r.status).toBe(303);
    const url = new URL(r.headers!.location!);
    expect(url.pathname).toContain('/settlements/live/p1/2026-10/PTS-000007/invoice.pdf');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.get('response-content-disposition')).toBe('attachment; filename="invoice-PTS-000007.pdf"');
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });

  it('has no document for a DRAFT (409 settlement.not_issued), and asks to retry while they are being stored', async () => {
    const { settlementDocument } = await import('../../shared/settlements/read');
    ddb.on(QueryCommand).resolves({ Items: [{ ...record(1, 'DRAFT'), documents: undefined, number: undefined }] });
    await expect(settlementDocument(tenant, 'x', 'statement')).rejects.toMatchObject({ code: 'settlement.not_issued', status: 409 });
    ddb.on(QueryCommand).resolves({ Items: [{ ...record(1), documents: undefined, documents_status: 'PENDING' }] });
    await expect(settlementDocument(tenant, 'x', 'statement')).rejects.toMatchObject({ code: 'settlement.documents.pending', headers: { 'retry-after': '5' } });
  });
});

describe('documents of a large settlement', () => {
  const issued: SettlementRecord = {
    ...record(0),
    total_minor: 0,
    documents: undefined,
    issuer: { name: 'Issuer SARL', address: 'a', ice: '1', if: '2', rc: '3', bank: 'b', rib: 'r' },
    partner: { legal_name: 'Bank SA', address: null, ice: null },
    issue_date: '2026-11-01',
    due_date: '2026-11-16',
    issued_at: '2026-11-01T01:30:00.000Z',
  };
  const linesOf = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      kind: (i % 50 === 49 ? 'ADJUSTMENT' : 'BOOKING') as 'BOOKING' | 'ADJUSTMENT',
      booking_number: `PTB-${String(i).padStart(4, '0')}-ABCD`,
      partner_reference: i % 7 === 0 ? `=HYPERLINK("x${i}")` : `REF-${i}`,
      travel_date: '2026-11-20',
      confirmed_at: new Date(Date.parse('2026-10-01T08:00:00Z') + ((i * 7919) % 30) * 86_400_000).toISOString(),
      adventure: ['Erg Chebbi camel trek', 'Medina walk', 'رحلة إلى الصحراء'][i % 3]!,
      status: (i % 50 === 49 ? 'CANCELLED' : 'CONFIRMED') as 'CONFIRMED' | 'CANCELLED',
      amount_minor: i % 50 === 49 ? -5_000 : 10_000 + i,
      charged_minor: 10_000 + i,
      refund_minor: 0,
      updated_at: '2026-10-31T10:00:00.000Z',
    }));

  // The first import of the renderer, the SDK and Powertools is in these tests: seconds on a loaded machine.
  it('streams the statement through a multipart upload, part by part, with the bytes it has rendered whole and their CRC32s', async () => {
    const { storeDocumentStream } = await import('../../shared/settlements/documents');
    const { renderStatement, statementChunks } = await import('../../shared/settlements/csv');
    const { SettlementDigest } = await import('../../shared/settlements/digest');
    const { CompleteMultipartUploadCommand, CreateMultipartUploadCommand, UploadPartCommand } = await import('@aws-sdk/client-s3');
    const { crc32Base64 } = await import('../../shared/kernel/s3');
    const lines = linesOf(3_000);
    const s = { ...issued, total_minor: lines.reduce((n, l) => n + l.amount_minor, 0) };
    const d = new SettlementDigest(200);
    for (let i = 0; i < lines.length; i += 1_000) d.add(lines.slice(i, i + 1_000));
    expect(d.lines).toBeUndefined();
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'u1' });
    s3.on(UploadPartCommand).callsFake((i: { PartNumber: number }) => ({ ETag: `e${i.PartNumber}` }));
    s3.on(CompleteMultipartUploadCommand).resolves({});
    const stored = await storeDocumentStream('k', 'statement', statementChunks(s, d.total, d.sortedRows()), 'statement.csv', 48 * 1024);
    const parts = s3.commandCalls(UploadPartCommand).map((c) => c.args[0].input);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    const whole = renderStatement(s, lines);
    expect(Buffer.concat(parts.map((p) => p.Body as Buffer))).toEqual(whole);
    expect(stored).toMatchObject({ bytes: whole.length, sha256: createHash('sha256').update(whole).digest('hex') });
    // The upload is a CRC32 of the full object (Object Lock takes no part without a checksum); each part carries its
    // own, listed again on completion with the whole document's.
    expect(s3.commandCalls(CreateMultipartUploadCommand)[0]!.args[0].input).toMatchObject({ ChecksumAlgorithm: 'CRC32', ChecksumType: 'FULL_OBJECT' });
    const crcOf = (b: Buffer) => crc32Base64(crc32(b));
    for (const p of parts) expect(p.ChecksumCRC32).toBe(crcOf(p.Body as Buffer));
    expect(s3.commandCalls(CompleteMultipartUploadCommand)[0]!.args[0].input).toEqual({
      Bucket: 'documents',
      Key: 'k',
      UploadId: 'u1',
      IfNoneMatch: '*',
      ChecksumType: 'FULL_OBJECT',
      ChecksumCRC32: crcOf(whole),
      MultipartUpload: { Parts: parts.map((p, i) => ({ PartNumber: i + 1, ETag: `e${p.PartNumber}`, ChecksumCRC32: crcOf(p.Body as Buffer) })) },
    });
  }, 30_000);

  it('aborts the upload of a write that failed; an abort that fails too is logged and counted, and the write still fails with its own error', async () => {
    const { storeDocumentStream } = await import('../../shared/settlements/documents');
    const { logger } = await import('../../shared/kernel/logger');
    const { recordMultipartAbortFailure } = await import('../../shared/kernel/metrics');
    const { AbortMultipartUploadCommand, CreateMultipartUploadCommand, S3ServiceException, UploadPartCommand } = await import('@aws-sdk/client-s3');
    const refusal = (name: string, status: number, message: string) =>
      new S3ServiceException({ name, $fault: status < 500 ? 'client' : 'server', $metadata: { httpStatusCode: status }, message });
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'u2' });
    s3.on(UploadPartCommand)
      .resolvesOnce({ ETag: 'e1' })
      .rejects(refusal('InternalError', 500, 'part 2 failed'));
    s3.on(AbortMultipartUploadCommand).rejects(refusal('AccessDenied', 403, 'Access Denied'));
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const chunks = [Buffer.alloc(50 * 1024, 'a'), Buffer.alloc(50 * 1024, 'b'), Buffer.from('c')];
    await expect(storeDocumentStream('k2', 'statement', chunks, 'statement.csv', 48 * 1024)).rejects.toThrow('part 2 failed');
    expect(s3.commandCalls(AbortMultipartUploadCommand).map((c) => c.args[0].input)).toEqual([{ Bucket: 'documents', Key: 'k2', UploadId: 'u2' }]);
    expect(errors).toHaveBeenCalledWith(
      'multipart upload not aborted',
      expect.objectContaining({ key: 'k2', upload_id: 'u2', status: 403, error: 'Access Denied', failure: 'part 2 failed' }),
    );
    expect(recordMultipartAbortFailure).toHaveBeenCalledTimes(1);
    // An abort that succeeds leaves nothing to say.
    errors.mockClear();
    s3.on(AbortMultipartUploadCommand).resolves({});
    await expect(storeDocumentStream('k3', 'statement', chunks, 'statement.csv', 48 * 1024)).rejects.toThrow('part 2 failed');
    expect(errors).not.toHaveBeenCalled();
    expect(recordMultipartAbortFailure).toHaveBeenCalledTimes(1);
    errors.mockRestore();
  }, 30_000);

  it('renders the invoice of thousands of lines as a summary with subtotals per week and adventure, of a few pages whatever the size', async () => {
    const { renderInvoice } = await import('../../shared/settlements/pdf');
    const pages = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length;
    const sized = async (n: number) => {
      const lines = linesOf(n);
      return renderInvoice({ ...issued, total_minor: lines.reduce((a, l) => a + l.amount_minor, 0) }, lines, 200);
    };
    const [small, large, larger] = [await sized(150), await sized(2_000), await sized(20_000)];
    expect(pages(small)).toBeGreaterThanOrEqual(1);
    expect(pages(large)).toBeLessThanOrEqual(3);
    expect(pages(larger)).toBe(pages(large));
    expect(Math.abs(larger.length - large.length)).toBeLessThan(2_000);
  }, 60_000);
});

describe('documents issued under the example identity (a stack deployed without the issuer file)', () => {
  const lines = Array.from({ length: 120 }, (_, i) => ({
    kind: 'BOOKING' as const,
    booking_number: `PTB-${String(i).padStart(4, '0')}-ABCD`,
    partner_reference: `REF-${i}`,
    travel_date: '2026-11-20',
    confirmed_at: '2026-10-02T08:00:00.000Z',
    adventure: 'Medina walk',
    status: 'CONFIRMED' as const,
    amount_minor: 10_000,
    charged_minor: 10_000,
    refund_minor: 0,
    updated_at: '2026-10-31T10:00:00.000Z',
  }));
  const issuer = {
    name: 'Partner Travel Services SARL',
    address: 'Casablanca',
    ice: '001234567000089',
    if: '12345678',
    rc: 'Casablanca 123456',
    bank: 'Banque Exemple',
    rib: '011 780 0000123456789012 34',
  };
  const settlement = (specimen: boolean): SettlementRecord => ({
    ...record(0),
    total_minor: 1_200_000,
    line_count: 120,
    booking_count: 120,
    documents: undefined,
    issuer: specimen ? { ...issuer, specimen: true } : issuer,
    partner: { legal_name: 'Bank SA', address: null, ice: null },
    issue_date: '2026-11-01',
    due_date: '2026-11-16',
    issued_at: '2026-11-01T01:30:00.000Z',
  });

  it('marks every page of the PDF "SPECIMEN — not a valid invoice" and asks for no transfer; a configured issuer has no mark', async () => {
    const { renderInvoice } = await import('../../shared/settlements/pdf');
    const { pdfText } = await import('../fixtures/pdf-text');
    // Wrapped lines are separate text operators: compared as one text, spaces collapsed.
    const text = (pages: string[][]) => pages.flat().join(' ').replace(/\s+/g, ' ');
    const marked = pdfText(await renderInvoice(settlement(true), lines, 200));
    expect(marked.length).toBeGreaterThan(1);
    for (const page of marked) {
      expect(page.some((t) => t.startsWith('SPECIMEN — not a valid invoice · Partner Travel Services SARL · Invoice N° PTS-000007 · Page'))).toBe(true);
      expect(page).toContain('SPECIMEN');
    }
    expect(text(marked.slice(0, 1))).toContain('SPECIMEN — not a valid invoice: the issuer above is an example company; nothing is due.');
    expect(text(marked)).toContain('Specimen: make no transfer.');
    expect(text(marked)).not.toContain('RIB 011 780');

    const valid = pdfText(await renderInvoice(settlement(false), lines, 200));
    expect(text(valid)).not.toMatch(/specimen/i);
    expect(text(valid)).toContain('Partner Travel Services SARL, Banque Exemple, RIB 011 780 0000123456789012 34');
  });

  // Finance reconciles the invoice on the partner's references: each is printed whole, its cell wrapped.
  it('prints every partner reference whole, up to 64 characters, its cell wrapped over the rows of several pages', async () => {
    const { renderInvoice } = await import('../../shared/settlements/pdf');
    const { pdfText } = await import('../fixtures/pdf-text');
    const reference = (i: number) =>
      [
        `BANK-1795618182-${String(i).padStart(4, '0')}`,
        // 64 characters (the API's maximum) and nowhere to break: cut inside the word.
        `${String(i).padStart(4, '0')}${'X7Q2'.repeat(15)}`,
        `CMI/2026/11/VIREMENT-${i}_agence.casablanca-anfa:${i}`,
      ][i % 3]!;
    const referenced = lines.map((l, i) => ({ ...l, partner_reference: reference(i) }));
    const pages = pdfText(await renderInvoice(settlement(false), referenced, 200));
    expect(pages.length).toBeGreaterThan(2);
    // A wrapped cell is one text operator per line, drawn one after the other.
    const joined = pages.map((p) => p.join(''));
    for (const [i, l] of referenced.entries()) {
      expect(joined.filter((p) => p.includes(reference(i))).length, reference(i)).toBe(1);
      expect(joined.filter((p) => p.includes(l.booking_number)).length).toBe(1);
    }
    expect(pages.flat().some((t) => t.includes('…'))).toBe(false);
    // The long one takes several lines of its column.
    expect(pages.flat().filter((t) => t.length > 0 && reference(1).includes(t)).length).toBeGreaterThan(1);
  }, 30_000);

  it('says so in the Issuer cell of the statement, with its header block and columns unchanged', async () => {
    const { renderStatement } = await import('../../shared/settlements/csv');
    const rows = (s: SettlementRecord) => renderStatement(s, lines).toString('utf8').split('\r\n');
    const marked = rows(settlement(true));
    const valid = rows(settlement(false));
    expect(marked[0]).toBe('\ufeffIssuer;Partner Travel Services SARL (SPECIMEN — not a valid invoice)');
    expect(valid[0]).toBe('\ufeffIssuer;Partner Travel Services SARL');
    expect(marked.slice(1)).toEqual(valid.slice(1));
  });
});
