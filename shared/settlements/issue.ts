import { accessStore } from '../access/store';
import { dataTable, type Seal, transact, unsealed } from '../db/client';
import { backoff } from '../db/retry';
import { recordEvent } from '../events/record';
import { countEvent } from '../kernel/metrics';
import { money } from '../kernel/money';
import type { Env } from '../kernel/tenant';
import { localDate } from '../kernel/time';
import { publishEvents } from '../webhooks/queue';
import { issuerIdentity, settlementSettings } from './config';
import { renderStatement } from './csv';
import { storeDocument } from './documents';
import { documentKeys } from './keys';
import { totalOf } from './lines';
import type { LedgerLine, PartnerIdentity, SettlementRecord } from './model';
import { formatNumber } from './numbering';
import { renderInvoice } from './pdf';
import { dueDate, periodEnd, periodStart } from './period';
import { settlementStore } from './store';

/** Attempts of one issue against concurrent issues of the same series (each retry re-reads the counter). */
export const MAX_ISSUE_ATTEMPTS = 60;

async function partnerIdentity(partnerId: string): Promise<PartnerIdentity> {
  const p = await accessStore.getPartner(partnerId);
  if (!p) throw new Error(`partner ${partnerId} does not exist`);
  return { legal_name: p.legal_name ?? p.name, address: p.legal_address ?? null, ice: p.legal_ice ?? null };
}

/**
 * DRAFT -> ISSUED. Sums the lines and checks them against the DRAFT's
 * counters (a line still being written shows as a difference: read again),
 * then commits the next number of the series and the status change in one
 * transaction conditioned on the counter's previous value and on those
 * counters. A lost race for the number re-reads the counter and tries again.
 * Returns the settlement as it is after (already issued: as it was).
 */
export async function issueDraft(
  partnerId: string,
  env: Env,
  period: string,
  now = new Date(),
): Promise<{ settlement?: SettlementRecord; issued: boolean; lines?: LedgerLine[] }> {
  const identity = await partnerIdentity(partnerId);
  for (let attempt = 0; attempt < MAX_ISSUE_ATTEMPTS; attempt++) {
    if (attempt > 0) await backoff(attempt, 10, 250);
    const s = await settlementStore.get(partnerId, env, period);
    if (s?.status !== 'DRAFT') return { settlement: s, issued: false };
    const lines = await settlementStore.lines(partnerId, env, period);
    if (totalOf(lines) !== s.total_minor || lines.length !== s.line_count) continue;
    const seq = (await settlementStore.lastNumber(env, partnerId)) + 1;
    const number = formatNumber(env, seq);
    const issueDate = localDate(now);
    const fields = {
      issued_at: now.toISOString(),
      issue_date: issueDate,
      due_date: dueDate(issueDate, settlementSettings().SETTLEMENT_PAYMENT_TERM_DAYS),
      issuer: issuerIdentity(),
      partner: identity,
    };
    const cancelled = await transact(dataTable.client, settlementStore.issue(s, seq, number, fields));
    if (!cancelled) {
      return { settlement: { ...s, status: 'ISSUED', number, seq, ...fields, documents_status: 'PENDING', updated_at: fields.issued_at }, issued: true, lines };
    }
    // Another issue took this number, a line landed meanwhile, or the settlement changed: read everything again.
  }
  throw new Error(`settlement ${partnerId}/${env}/${period}: could not take a number after ${MAX_ISSUE_ATTEMPTS} attempts`);
}

/**
 * Renders and stores the PDF and the CSV of an ISSUED settlement, then records
 * them on it with settlement.issued, in one transaction. Runs again safely:
 * the documents render the same and an already-stored settlement is left as
 * it is. `seal` goes to that transaction (a test helper's answer).
 */
export async function storeDocuments(
  s: SettlementRecord,
  seal: Seal<SettlementRecord> = unsealed,
  now = new Date(),
  issuedLines?: LedgerLine[],
): Promise<{ settlement: SettlementRecord; stored: boolean }> {
  // The lines the issue summed (an issued settlement's lines never change), or read again when resuming.
  const lines = issuedLines ?? (await settlementStore.lines(s.partner_id, s.env, s.period));
  const c = settlementSettings();
  const number = s.number!;
  const [pdf, csv] = [await renderInvoice(s, lines, c.SETTLEMENT_INVOICE_MAX_ROWS), renderStatement(s, lines)];
  const documents = {
    invoice: await storeDocument(documentKeys.invoice(s.partner_id, s.env, s.period, number), 'invoice', pdf, `invoice-${number}.pdf`),
    statement: await storeDocument(documentKeys.statement(s.partner_id, s.env, s.period, number), 'statement', csv, `statement-${number}.csv`),
  };
  const result: SettlementRecord = { ...s, documents, documents_status: 'READY', updated_at: now.toISOString() };
  const event = recordEvent(
    s.partner_id,
    s.env,
    'settlement.issued',
    {
      settlement_id: s.id,
      number,
      status: 'ISSUED',
      period_start: periodStart(s.period),
      period_end: periodEnd(s.period),
      total_due: money(s.total_minor),
      issue_date: s.issue_date!,
      due_date: s.due_date!,
      booking_count: s.booking_count,
      line_count: s.line_count,
    },
    now,
  );
  const cancelled = await transact(dataTable.client, { settlement: settlementStore.documentsStored(s, documents, now) }, [event.item], seal.items(result));
  // Another run stored them first (two runs at once): it reports this settlement, not this one.
  if (cancelled) return { settlement: (await settlementStore.get(s.partner_id, s.env, s.period)) ?? result, stored: false };
  await publishEvents([event]);
  countEvent('SettlementsIssued', s.env);
  return { settlement: result, stored: true };
}

export interface TenantRun {
  partner_id: string;
  env: Env;
  /** Settlements whose issue this run completed (documents stored, settlement.issued recorded), including those an earlier run left half-way. */
  settlements: SettlementRecord[];
  /** The numbers this run took (DRAFT -> ISSUED). A settlement an earlier run numbered is completed here, not issued. */
  issued: string[];
}

/**
 * The monthly job for one tenant: every DRAFT up to `throughPeriod` (oldest
 * first) is issued, then every ISSUED settlement whose documents are not
 * stored yet gets them (a run that stopped half-way resumes here). Running it
 * again issues nothing twice. `seal` goes to the run's last transaction.
 */
export async function settleTenant(
  partnerId: string,
  env: Env,
  throughPeriod: string,
  seal: Seal<SettlementRecord[]> = unsealed,
  now = new Date(),
): Promise<TenantRun> {
  const summed = new Map<string, LedgerLine[]>();
  const issued: string[] = [];
  for (const s of await settlementStore.allForTenant(partnerId, env)) {
    if (s.status !== 'DRAFT' || s.period > throughPeriod) continue;
    const r = await issueDraft(partnerId, env, s.period, now);
    if (r.issued) issued.push(r.settlement!.number!);
    if (r.issued && r.lines) summed.set(s.period, r.lines);
  }
  const pending = (await settlementStore.allForTenant(partnerId, env)).filter((s) => s.status !== 'DRAFT' && s.documents_status === 'PENDING');
  const done: SettlementRecord[] = [];
  for (const [i, s] of pending.entries()) {
    const last = i === pending.length - 1;
    const sealFor: Seal<SettlementRecord> = last ? { items: (r) => seal.items([...done, r]) } : unsealed;
    const r = await storeDocuments(s, sealFor, now, summed.get(s.period));
    if (r.stored) done.push(r.settlement);
  }
  return { partner_id: partnerId, env, settlements: done, issued };
}
