import type { Env } from '../kernel/tenant';

export type SettlementStatus = 'DRAFT' | 'ISSUED' | 'PAID';
export const SETTLEMENT_STATUSES = ['DRAFT', 'ISSUED', 'PAID'] as const;

/** The issuer's legal identity as printed on an invoice (from configuration, frozen at issue). */
export interface IssuerIdentity {
  name: string;
  address: string;
  ice: string;
  if: string;
  rc: string;
  bank: string;
  rib: string;
  /** The example identity of a stack deployed without one: the documents say SPECIMEN, not a valid invoice. */
  specimen?: true;
}

/** On every page of an invoice, and in its statement's Issuer cell, issued under the example identity (a stack deployed without the issuer's own). */
export const SPECIMEN_MARK = 'SPECIMEN — not a valid invoice';

/** The partner's legal identity as printed on an invoice (edited by the operators, frozen at issue). */
export interface PartnerIdentity {
  legal_name: string;
  address: string | null;
  ice: string | null;
}

export interface StoredDocument {
  key: string;
  bytes: number;
  sha256: string;
}

/**
 * One settlement: a partner, an environment, a month. Amounts in centimes.
 * The totals (total, lines, bookings) are the sum of its ledger lines: summed
 * when a DRAFT is read, frozen on the item when it is issued.
 */
export interface SettlementRecord {
  id: string;
  partner_id: string;
  env: Env;
  period: string;
  status: SettlementStatus;
  currency: 'MAD';
  total_minor: number;
  line_count: number;
  booking_count: number;
  created_at: string;
  updated_at: string;
  /** When its close began: from then on the ledger's writers send their lines to a later period (docs/architecture.md, "The settlement ledger"). */
  closing_at?: string;
  /** Set in the transaction that issues it. */
  number?: string;
  seq?: number;
  issued_at?: string;
  issue_date?: string;
  due_date?: string;
  issuer?: IssuerIdentity;
  partner?: PartnerIdentity;
  /** PENDING from the issue until the PDF and the CSV are stored; READY with settlement.issued. */
  documents_status?: 'PENDING' | 'READY';
  documents?: { invoice: StoredDocument; statement: StoredDocument };
  paid_at?: string;
  transfer_reference?: string;
  amount_received_minor?: number;
}

export type LineKind = 'BOOKING' | 'ADJUSTMENT';

/** A ledger line: what one booking adds to one settlement. */
export interface LedgerLine {
  kind: LineKind;
  booking_number: string;
  partner_reference: string;
  travel_date: string;
  /** When the booking was confirmed (its creation instant). */
  confirmed_at: string;
  adventure: string;
  /** The booking's status as this settlement knows it; ADJUSTMENT lines are CANCELLED. */
  status: 'CONFIRMED' | 'COMPLETED' | 'CANCELLED';
  /** What the line contributes, in centimes: the amount charged, what was kept after a refund, or minus a later refund. */
  amount_minor: number;
  /** The amount charged to the end customer at booking. */
  charged_minor: number;
  refund_minor: number;
  /** ADJUSTMENT lines: the settlement (period and number) that invoiced the booking. */
  adjusts?: { period: string; number: string | null };
  updated_at: string;
}
