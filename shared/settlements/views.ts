import type { z } from 'zod';
import { money } from '../kernel/money';
import type { SettlementRecord } from './model';
import { periodEnd, periodStart } from './period';
import type { Settlement } from './schemas';

export type SettlementView = z.input<typeof Settlement>;

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
    links: {
      invoice_pdf: ready ? `/v1/settlements/${s.id}/invoice.pdf` : null,
      statement_csv: ready ? `/v1/settlements/${s.id}/statement.csv` : null,
    },
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

export const settlementListView = (list: SettlementRecord[]) => ({ data: list.map(settlementView) });
