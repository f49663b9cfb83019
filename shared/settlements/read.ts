import type { RawResult } from '../http/route';
import { ApiError, notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import { settlementSettings } from './config';
import { type DocumentKind, documentLink, readDocument } from './documents';
import type { SettlementRecord, SettlementStatus } from './model';
import { settlementStore } from './store';

export async function getSettlement(t: Tenant, id: string): Promise<SettlementRecord> {
  const s = await settlementStore.findForTenant(t.partnerId, t.env, id);
  if (!s) throw notFound('Settlement', id);
  return s;
}

/** A page of a settlement's lines: the rows of its statement, a DRAFT's running ones included. */
export async function listSettlementLines(t: Tenant, id: string, limit: number, after?: string) {
  const s = await getSettlement(t, id);
  return settlementStore.linePage(t.partnerId, t.env, s.period, limit, after);
}

export interface SettlementListQuery {
  limit: number;
  status?: SettlementStatus[];
  period_from?: string;
  period_to?: string;
}

/** The tenant's settlements, newest period first, with the filters of GET /settlements. */
export async function listSettlements(t: Tenant, q: SettlementListQuery, after?: string) {
  const from = q.period_from ?? '0000-01';
  const to = q.period_to ?? '9999-12';
  if (from > to) {
    throw new ApiError('validation.field.invalid', 'period_from must not be after period_to.', {
      errors: [{ field: 'period_from', location: 'query', message: 'after period_to', expected: `at most ${to}` }],
    });
  }
  return settlementStore.listForTenant(t.partnerId, t.env, { limit: q.limit, status: q.status, from, to }, after);
}

export type DocumentAnswer = { kind: 'inline'; body: Buffer; filename: string } | { kind: 'link'; url: string; filename: string };

/**
 * An issued document: inline when it fits a Lambda answer, otherwise a link
 * (a short-lived presigned S3 URL the route answers with a 303). A DRAFT has
 * none (409 settlement.not_issued).
 */
export async function settlementDocument(t: Tenant, id: string, kind: DocumentKind): Promise<DocumentAnswer> {
  const s = await getSettlement(t, id);
  if (s.status === 'DRAFT') {
    throw new ApiError('settlement.not_issued', `Settlement ${s.id} (${s.period}) is a DRAFT: it gets its invoice and statement when it is issued.`, {
      status: s.status,
    });
  }
  const doc = s.documents?.[kind];
  if (!doc) {
    throw new ApiError(
      'settlement.documents.pending',
      `Settlement ${s.number} was just issued; its documents are being stored. Retry in a few seconds.`,
      undefined,
      {
        'retry-after': '5',
      },
    );
  }
  const filename = `${kind}-${s.number}.${kind === 'invoice' ? 'pdf' : 'csv'}`;
  if (doc.bytes > settlementSettings().SETTLEMENT_INLINE_MAX_BYTES) return { kind: 'link', url: await documentLink(doc.key, kind, filename), filename };
  return { kind: 'inline', body: await readDocument(doc.key), filename };
}

/** The route's answer for a document: the file as a base64 attachment, or a 303 to its presigned link. */
export function documentResult(d: DocumentAnswer, contentType: string): RawResult {
  if (d.kind === 'link') return { status: 303, raw: { body: '', contentType: 'text/plain' }, headers: { location: d.url, 'cache-control': 'no-store' } };
  return {
    raw: { body: d.body.toString('base64'), contentType, isBase64: true },
    headers: { 'content-disposition': `attachment; filename="${d.filename}"`, 'cache-control': 'private, no-cache' },
  };
}
