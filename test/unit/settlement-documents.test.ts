import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { SettlementRecord } from '../../shared/settlements/model';

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
