import type { Env } from '../kernel/tenant';

/**
 * Keys of settlements, their ledger lines and their number series in the data
 * table (docs/architecture.md, "Data model and access patterns", rows "settlements
 * of a tenant" to "number series"),
 * and the S3 keys of their documents.
 */
export const settlementKeys = {
  /** A tenant's settlements, one item per period, in one partition: lists are a Query, newest period first. */
  tenantPartition: (partnerId: string, env: Env) => `STL#${partnerId}#${env}`,
  periodPrefix: 'PERIOD#',
  header: (partnerId: string, env: Env, period: string) => ({ pk: settlementKeys.tenantPartition(partnerId, env), sk: `PERIOD#${period}` }),
  /** Sort-key bounds of the periods from..to, inclusive. */
  periodRange: (from: string, to: string) => ({ from: `PERIOD#${from}`, to: `PERIOD#${to}` }),
  periodOfSort: (sk: string) => sk.slice('PERIOD#'.length),
  /** gsi2: a settlement by id, for the operators (their commands know only the id). */
  byIdPartition: (id: string) => `STLID#${id}`,
  byId: (id: string) => ({ gsi2pk: settlementKeys.byIdPartition(id), gsi2sk: 'STL' }),
  /** The ledger of one settlement: a line per booking confirmed in the period, and the adjustments of later cancellations. */
  ledgerPartition: (partnerId: string, env: Env, period: string) => `LEDGER#${partnerId}#${env}#${period}`,
  bookingLine: (partnerId: string, env: Env, period: string, bookingNumber: string) => ({
    pk: settlementKeys.ledgerPartition(partnerId, env, period),
    sk: `LINE#${bookingNumber}`,
  }),
  adjustmentLine: (partnerId: string, env: Env, period: string, bookingNumber: string) => ({
    pk: settlementKeys.ledgerPartition(partnerId, env, period),
    sk: `ADJ#${bookingNumber}`,
  }),
  /** A number series: live is one series for the service (the issuer's); each sandbox tenant has its own. */
  seriesPartition: (env: Env, partnerId: string) => (env === 'live' ? 'STLSEQ#LIVE' : `STLSEQ#TEST#${partnerId}`),
  /** The series' counter: the last number assigned. */
  counter: (env: Env, partnerId: string) => ({ pk: settlementKeys.seriesPartition(env, partnerId), sk: 'SEQ' }),
  /** The register of a series: one item per number assigned, written with it (what an auditor reads). */
  registerPrefix: 'NUM#',
  registerEntry: (env: Env, partnerId: string, seq: number) => ({
    pk: settlementKeys.seriesPartition(env, partnerId),
    sk: `NUM#${String(seq).padStart(9, '0')}`,
  }),
};

/** The settlements' partitions, as dynamodb:LeadingKeys patterns (the route table's `dynamo`, shared/db/grants.ts): a tenant's settlements, their ledger lines, the number series. */
export const settlementPartitions = {
  settlement: 'STL#*',
  ledger: 'LEDGER#*',
  series: 'STLSEQ#*',
};

/** S3 keys of the issued documents (the settlement-documents bucket). */
export const documentKeys = {
  invoice: (partnerId: string, env: Env, period: string, number: string) => `settlements/${env}/${partnerId}/${period}/${number}/invoice.pdf`,
  statement: (partnerId: string, env: Env, period: string, number: string) => `settlements/${env}/${partnerId}/${period}/${number}/statement.csv`,
};
