import type { z } from 'zod';
import { money } from '../kernel/money';
import { lineStatus } from './lines';
import type { LedgerLine, SettlementRecord } from './model';
import { periodEnd, periodStart } from './period';
import type { PaymentInstructions, Settlement, SettlementLine } from './schemas';

export type SettlementView = z.input<typeof Settlement>;
export type SettlementLineView = z.input<typeof SettlementLine>;

/** What the invoice's payment block says (shared/settlements/pdf.ts): to whom, where, how much, by when, quoting what. */
function paymentInstructions(s: SettlementRecord): z.input<typeof PaymentInstructions> | null {
  if (s.status === 'DRAFT' || !s.issuer || !s.number || !s.due_date) return null;
  return {
    transfer_expected: s.env === 'live' && !s.issuer.specimen,
    beneficiary: s.issuer.name,
    bank: s.issuer.bank,
    rib: s.issuer.rib,
    amount: money(s.total_minor),
    due_date: s.due_date,
    reference: s.number,
  };
}

export function settlementView(s: SettlementRecord): SettlementView {
  // The documents are linked once stored: a DRAFT has none, and an issue stores them just after taking its number.
  const ready = s.status !== 'DRAFT' && s.documents_status === 'READY';
  return {
    id: s.id,
    number: s.number ?? null,
    status: s.status,
    test_mode: s.env === 'test',
    period_start: periodStart(s.period),
    period_end: periodEnd(s.period),
    currency: 'MAD',
    total_due: money(s.total_minor),
    booking_count: s.booking_count,
    line_count: s.line_count,
    issued_at: s.issued_at ?? null,
    issue_date: s.issue_date ?? null,
    due_date: s.due_date ?? null,
    paid_at: s.paid_at ?? null,
    transfer_reference: s.transfer_reference ?? null,
    payment_instructions: paymentInstructions(s),
    links: {
      invoice_pdf: ready ? `/v1/settlements/${s.id}/invoice.pdf` : null,
      statement_csv: ready ? `/v1/settlements/${s.id}/statement.csv` : null,
    },
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

export const settlementListView = (list: SettlementRecord[]) => ({ data: list.map(settlementView) });

/** A ledger line as the statement's row shows it. */
export function settlementLineView(l: LedgerLine): SettlementLineView {
  return {
    kind: l.kind,
    booking_number: l.booking_number,
    partner_reference: l.partner_reference,
    travel_date: l.travel_date,
    confirmed_at: l.confirmed_at,
    adventure: l.adventure,
    status: lineStatus(l) as SettlementLineView['status'],
    amount: money(l.amount_minor),
    charged_amount: money(l.charged_minor),
    refund_amount: money(l.refund_minor),
    adjusts: l.adjusts ?? null,
  };
}
