import { accessPartitions } from '../access/keys';
import { BUCKETS } from '../buckets';
import { dynamoLine } from '../db/grants';
import { eventPartitions } from '../events/keys';
import { defineRoutes } from '../http/route-def';
import { settlementPartitions } from './keys';
import {
  PaySettlementBody,
  RunSettlementsBody,
  Settlement,
  SettlementDocument,
  SettlementIdParams,
  SettlementLinePage,
  SettlementLinesQuery,
  SettlementList,
  SettlementListQuery,
  SettlementPage,
} from './schemas';

const documentResponses = (contentType: string, what: string, file: string) => ({
  200: {
    description: `The ${what} as an attachment (Content-Disposition).`,
    schema: SettlementDocument,
    contentType,
    headers: { 'Content-Disposition': `attachment; filename="${file}", the settlement's number in the name to save it under.` },
  },
  303: { description: `A ${what} too large for an inline answer: Location is a presigned S3 URL valid 5 minutes.` },
});

/** Settlements: the monthly invoices from the service to the partner, their documents, and their sandbox test helpers. */
export const settlementRoutes = defineRoutes({
  listSettlements: {
    method: 'GET',
    path: '/v1/settlements',
    handler: 'functions/settlements/list.ts',
    access: 'key',
    scope: 'settlements:read',
    tag: 'Settlements',
    summary: 'Your settlements, newest period first',
    description: 'One per month with bookings: the running month is a DRAFT with its running total and no number.',
    request: { query: SettlementListQuery },
    responses: { 200: { description: 'A page of settlements.', schema: SettlementPage } },
    // The tenant's settlements (STL#); a DRAFT's totals sum its ledger lines.
    dynamo: { data: { Query: [settlementPartitions.settlement, settlementPartitions.ledger] } },
  },
  getSettlement: {
    method: 'GET',
    path: '/v1/settlements/{id}',
    handler: 'functions/settlements/get.ts',
    access: 'key',
    scope: 'settlements:read',
    tag: 'Settlements',
    summary: 'One settlement',
    description: 'A settlement of yours: its status (DRAFT, ISSUED, PAID), period, total due and, once issued, its number, dates and document links.',
    request: { params: SettlementIdParams },
    responses: { 200: { description: 'The settlement.', schema: Settlement } },
    // The tenant's settlements (STL#); a DRAFT's totals sum its ledger lines.
    dynamo: { data: { Query: [settlementPartitions.settlement, settlementPartitions.ledger] } },
  },
  listSettlementLines: {
    method: 'GET',
    path: '/v1/settlements/{id}/lines',
    handler: 'functions/settlements/lines.ts',
    access: 'key',
    scope: 'settlements:read',
    tag: 'Settlements',
    summary: "A settlement's lines, as its statement lists them",
    description:
      "Keyset-paged: one line per booking confirmed in the period and one ADJUSTMENT per refund of a booking an earlier settlement invoiced (the statement CSV's rows, " +
      'with their amounts as Money). Adjustments first, then bookings, each by booking number. A DRAFT shows its running lines. The amounts sum to total_due.',
    request: { params: SettlementIdParams, query: SettlementLinesQuery },
    responses: { 200: { description: 'A page of lines.', schema: SettlementLinePage } },
    dynamo: { data: { Query: [settlementPartitions.settlement, settlementPartitions.ledger] } },
  },
  getSettlementInvoice: {
    method: 'GET',
    path: '/v1/settlements/{id}/invoice.pdf',
    handler: 'functions/settlements/invoice.ts',
    access: 'key',
    scope: 'settlements:read',
    tag: 'Settlements',
    summary: 'The invoice (PDF) of an issued settlement',
    description: '409 settlement.not_issued for a DRAFT.',
    request: { params: SettlementIdParams },
    errors: ['settlement.not_issued', 'settlement.documents.pending'],
    responses: documentResponses('application/pdf', 'PDF invoice', 'invoice-<number>.pdf'),
    buckets: { settlementDocuments: 'read' },
    dynamo: { data: { Query: [settlementPartitions.settlement, settlementPartitions.ledger] } },
  },
  getSettlementStatement: {
    method: 'GET',
    path: '/v1/settlements/{id}/statement.csv',
    handler: 'functions/settlements/statement.ts',
    access: 'key',
    scope: 'settlements:read',
    tag: 'Settlements',
    summary: 'The statement of account (CSV) of an issued settlement',
    description:
      'Semicolon-delimited, UTF-8 with a byte order mark, CRLF, decimal point: a header block (issuer, period, invoice number and date, due date, currency, ' +
      'total due), then one row per line with AmountToChargeClient. 409 settlement.not_issued for a DRAFT.',
    request: { params: SettlementIdParams },
    errors: ['settlement.not_issued', 'settlement.documents.pending'],
    responses: documentResponses('text/csv', 'CSV statement', 'statement-<number>.csv'),
    buckets: { settlementDocuments: 'read' },
    dynamo: { data: { Query: [settlementPartitions.settlement, settlementPartitions.ledger] } },
  },
  runSettlementsTestHelper: {
    method: 'POST',
    path: '/v1/test-helpers/settlements/run',
    handler: 'functions/settlements/test-run.ts',
    effectsOutsideCommit:
      'Each settlement is closed, numbered and issued in steps of their own before the answer commits; a rerun would answer only what was left.',
    access: 'key',
    scope: 'settlements:write',
    tag: 'Test helpers',
    summary: 'Sandbox: run the monthly settlement job for your tenant now',
    description:
      'Issues your open sandbox settlements up to `period` (default: all, the running month included, so bookings made a minute ago are issued), ' +
      'with their PDF, CSV and settlement.issued. A month closed early stays closed: later bookings go to the next month. Sandbox keys only.',
    request: { body: RunSettlementsBody },
    errors: ['settlement.period.not_closable'],
    responses: { 200: { description: 'The settlements this run issued.', schema: SettlementList } },
    sandboxOnly: true,
    publishesEvents: true,
    buckets: { settlementDocuments: 'write-multipart' },
    rendersPdf: true,
    // API Gateway HTTP APIs wait at most 30 s for an integration.
    timeoutSeconds: 29,
    /*
     * The partner's legal identity; per DRAFT: its close, the sum of its lines, the next number of the series (its
     * counter and register, STLSEQ#), the issue; then its documents and settlement.issued.
     */
    dynamo: {
      access: { GetItem: [accessPartitions.partner] },
      data: {
        Query: [settlementPartitions.settlement, settlementPartitions.ledger],
        GetItem: [settlementPartitions.settlement, settlementPartitions.series],
        UpdateItem: [settlementPartitions.settlement, settlementPartitions.series],
        PutItem: [settlementPartitions.series, eventPartitions.events],
      },
    },
    untested: {
      [`s3:AbortMultipartUpload on bucket ${BUCKETS.settlementDocuments!.name}/*`]: "a statement's multipart upload (beyond 8 MB) that fails is aborted",
    },
  },
  paySettlementTestHelper: {
    method: 'POST',
    path: '/v1/test-helpers/settlements/{id}/pay',
    handler: 'functions/settlements/test-pay.ts',
    access: 'key',
    scope: 'settlements:write',
    tag: 'Test helpers',
    summary: 'Sandbox: a simulated transfer of the total due pays an ISSUED settlement',
    description: 'PAID with settlement.paid; 409 settlement.transition.invalid unless ISSUED. Sandbox keys only.',
    request: { params: SettlementIdParams, body: PaySettlementBody },
    errors: ['settlement.transition.invalid', 'settlement.amount.mismatch'],
    responses: { 200: { description: 'The PAID settlement.', schema: Settlement } },
    sandboxOnly: true,
    publishesEvents: true,
    dynamo: {
      data: {
        Query: [settlementPartitions.settlement, settlementPartitions.ledger],
        UpdateItem: [settlementPartitions.settlement],
        PutItem: [eventPartitions.events],
        GetItem: [settlementPartitions.settlement],
      },
    },
    untested: {
      [dynamoLine('data', 'GetItem', settlementPartitions.settlement)]: 'a payment refused by a concurrent change reads the settlement again to say why',
    },
  },
});
