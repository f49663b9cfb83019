import { accessStore } from '../access/store';
import { dataTable, type Seal, transact, unsealed } from '../db/client';
import { backoff, sleep } from '../db/retry';
import { recordEvent } from '../events/record';
import { logger } from '../kernel/logger';
import { countEvent } from '../kernel/metrics';
import { money } from '../kernel/money';
import type { Env } from '../kernel/tenant';
import { localDate } from '../kernel/time';
import { publishEvents } from '../webhooks/queue';
import { issuerIdentity, settlementSettings } from './config';
import { statementChunks } from './csv';
import { SettlementDigest } from './digest';
import { storeDocument, storeDocumentStream } from './documents';
import { documentKeys } from './keys';
import type { PartnerIdentity, SettlementRecord } from './model';
import { formatNumber } from './numbering';
import { renderInvoiceOf } from './pdf';
import { dueDate, periodEnd, periodOf, periodStart } from './period';
import { settlementStore } from './store';

/** Attempts of one issue against concurrent issues of the same series (each retry re-reads the counter). */
export const MAX_ISSUE_ATTEMPTS = 60;

async function partnerIdentity(partnerId: string): Promise<PartnerIdentity> {
  const p = await accessStore.getPartner(partnerId);
  if (!p) throw new Error(`partner ${partnerId} does not exist`);
  return { legal_name: p.legal_name ?? p.name, address: p.legal_address ?? null, ice: p.legal_ice ?? null };
}

/** How long the ledger's writers may still be writing to a period once its close began (docs/architecture.md, "The settlement ledger"). */
export const closeGraceMs = (env: Env) => {
  const c = settlementSettings();
  return env === 'test' ? c.SETTLEMENT_SANDBOX_CLOSE_GRACE_MS : c.SETTLEMENT_CLOSE_GRACE_MS;
};

/**
 * Waits until no writer that saw the period open can still be in flight.
 * Every line of a period is written by a request that began inside the period
 * (or before, for a line sent on from a month closed early), read the
 * settlement open, and lasts less than the grace. So once the grace has
 * passed since the later of the period's end and the close's start, every
 * such line has committed, and later writers read the close and go to the
 * next period. The monthly job runs long after its months ended: it never waits.
 */
async function writersDone(env: Env, period: string, closingAt: string, leadMs: number) {
  const grace = closeGraceMs(env);
  const closing = Date.parse(closingAt);
  if (periodOf(new Date(closing - grace)) > period) return;
  // Measured on the clock the close was begun on (a sandbox clock is leadMs ahead of real time): the grace is real time.
  const wait = closing + grace - (Date.now() + leadMs);
  if (wait > 0) await sleep(wait);
}

/**
 * DRAFT -> ISSUED. Begins the close (`closing_at`: the ledger's writers now
 * send their lines to the next period), waits for the writers that saw it
 * open, sums the lines (a paged Query), then commits the next number of the
 * series, the status change and the totals in one transaction conditioned on
 * the counter's previous value and on the close it began. A lost race for the
 * number re-reads the counter and tries again. Returns the settlement as it
 * is after (already issued: as it was), and the lines it summed.
 */
export async function issueDraft(partnerId: string, env: Env, period: string, now = new Date()): Promise<{ settlement?: SettlementRecord; issued: boolean }> {
  // Before the close begins: a function without the issuer's identity fails here, not halfway through it.
  const issuer = issuerIdentity();
  const identity = await partnerIdentity(partnerId);
  const leadMs = now.getTime() - Date.now();
  for (let attempt = 0; attempt < MAX_ISSUE_ATTEMPTS; attempt++) {
    if (attempt > 0) await backoff(attempt, 10, 250);
    const draft = await settlementStore.header(partnerId, env, period);
    if (draft?.status !== 'DRAFT') return { settlement: draft, issued: false };
    const closingAt = await settlementStore.startClosing(draft, now);
    if (!closingAt) continue;
    await writersDone(env, period, closingAt, leadMs);
    const s: SettlementRecord = { ...draft, closing_at: closingAt, ...(await settlementStore.sum(partnerId, env, period)) };
    const seq = (await settlementStore.lastNumber(env, partnerId)) + 1;
    const number = formatNumber(env, seq);
    const issueDate = localDate(now);
    const fields = {
      issued_at: now.toISOString(),
      issue_date: issueDate,
      due_date: dueDate(issueDate, settlementSettings().SETTLEMENT_PAYMENT_TERM_DAYS),
      issuer,
      partner: identity,
    };
    const cancelled = await transact(dataTable.client, settlementStore.issue(s, seq, number, fields));
    if (!cancelled) {
      await checkLedgerFrozen(s);
      return { settlement: { ...s, status: 'ISSUED', number, seq, ...fields, documents_status: 'PENDING', updated_at: fields.issued_at }, issued: true };
    }
    // Another issue took this number, or the settlement changed: read everything again.
  }
  throw new Error(`settlement ${partnerId}/${env}/${period}: could not take a number after ${MAX_ISSUE_ATTEMPTS} attempts`);
}

/**
 * After the issue: the ledger must still sum to the issued totals. A line
 * that landed after the sum would come from a writer slower than the grace
 * (SETTLEMENT_CLOSE_GRACE_MS too short for the functions' timeout): an
 * operator's alarm, logged as an error. The documents are rendered from the
 * lines that were summed, and are never stored if they differ from the
 * issued totals (the renderers check).
 */
async function checkLedgerFrozen(s: SettlementRecord) {
  const after = await settlementStore.sum(s.partner_id, s.env, s.period);
  if (after.total_minor === s.total_minor && after.line_count === s.line_count) return;
  logger.error('settlement ledger changed after its sum', {
    settlement_id: s.id,
    period: s.period,
    issued: { total_minor: s.total_minor, line_count: s.line_count },
    now: after,
  });
}

/**
 * Renders and stores the PDF and the CSV of an ISSUED settlement, then records
 * them on it with settlement.issued, in one transaction. Streams: the lines
 * are read page by page into a digest (totals, subtotals, the statement's
 * rows as short strings), the invoice is rendered from it (every line only
 * when there are few), and the statement goes to S3 in parts as it is
 * written. Runs again safely: the documents render the same and an
 * already-stored settlement is left as it is. `seal` goes to that transaction
 * (a test helper's answer).
 */
export async function storeDocuments(
  s: SettlementRecord,
  seal: Seal<SettlementRecord> = unsealed,
  now = new Date(),
): Promise<{ settlement: SettlementRecord; stored: boolean }> {
  const c = settlementSettings();
  const number = s.number!;
  // An issued settlement's lines never change: the digest reads the lines its total was summed from.
  const digest = new SettlementDigest(c.SETTLEMENT_INVOICE_MAX_ROWS);
  for await (const page of settlementStore.linePages(s.partner_id, s.env, s.period)) digest.add(page);
  const pdf = await renderInvoiceOf(s, digest);
  const documents = {
    invoice: await storeDocument(documentKeys.invoice(s.partner_id, s.env, s.period, number), 'invoice', pdf, `invoice-${number}.pdf`),
    statement: await storeDocumentStream(
      documentKeys.statement(s.partner_id, s.env, s.period, number),
      'statement',
      statementChunks(s, digest.total, digest.sortedRows()),
      `statement-${number}.csv`,
    ),
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
  const issued: string[] = [];
  for (const s of await settlementStore.allForTenant(partnerId, env)) {
    if (s.status !== 'DRAFT' || s.period > throughPeriod) continue;
    const r = await issueDraft(partnerId, env, s.period, now);
    if (r.issued) issued.push(r.settlement!.number!);
  }
  const pending = (await settlementStore.allForTenant(partnerId, env)).filter((s) => s.status !== 'DRAFT' && s.documents_status === 'PENDING');
  const done: SettlementRecord[] = [];
  for (const [i, s] of pending.entries()) {
    const last = i === pending.length - 1;
    const sealFor: Seal<SettlementRecord> = last ? { items: (r) => seal.items([...done, r]) } : unsealed;
    const r = await storeDocuments(s, sealFor, now);
    if (r.stored) done.push(r.settlement);
  }
  return { partner_id: partnerId, env, settlements: done, issued };
}
