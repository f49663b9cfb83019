import { randomUUID } from 'node:crypto';
import type { TransactItem } from '../db/client';
import { type Money, toMinor } from '../kernel/money';
import type { Env } from '../kernel/tenant';
import type { LedgerLine } from './model';
import { nextPeriod, type Period, periodOf } from './period';
import { settlementStore } from './store';

/**
 * The settlement ledger as the bookings write it: each change of a booking
 * that moves money for a settlement adds its items (`settlement`, `line`) to
 * the booking's own transaction, so the ledger and the bookings never
 * disagree. Settlements never read the bookings.
 */
export interface LedgerBooking {
  booking_number: string;
  partner_id: string;
  env: Env;
  partner_reference: string;
  travel_date: string;
  created_at: string;
  adventure: { title: string };
  net_amount: Money;
  /** The period whose settlement holds the booking's line (absent on bookings made before settlements existed). */
  settlement_period?: string;
}

export type LedgerItems = Partial<Record<'settlement' | 'line', TransactItem>>;

/** Periods a sandbox tenant closed early (a test helper) stay closed: at most this many are skipped to find an open one. */
const MAX_CLOSED_AHEAD = 24;

/** The first period from `p` on whose settlement is still open (a DRAFT, or none yet). */
export async function openPeriodFrom(partnerId: string, env: Env, p: Period): Promise<Period> {
  for (let i = 0; i < MAX_CLOSED_AHEAD; i++, p = nextPeriod(p)) {
    const s = await settlementStore.get(partnerId, env, p);
    if (!s || s.status === 'DRAFT') return p;
  }
  throw new Error(`no open settlement period within ${MAX_CLOSED_AHEAD} months of ${p}`);
}

export const settlementLedger = {
  /** The period a booking confirmed `now` goes to first: its month in Morocco (if that settlement was closed early, the booking moves on). */
  periodFor: (now: Date): Period => periodOf(now),

  /** A confirmed booking: its line in the DRAFT of `period`, for the amount charged to the end customer. */
  confirmed(b: LedgerBooking, period: Period, now: Date): LedgerItems {
    const charged = toMinor(b.net_amount.amount);
    const line: LedgerLine = {
      kind: 'BOOKING',
      booking_number: b.booking_number,
      partner_reference: b.partner_reference,
      travel_date: b.travel_date,
      confirmed_at: b.created_at,
      adventure: b.adventure.title,
      status: 'CONFIRMED',
      amount_minor: charged,
      charged_minor: charged,
      refund_minor: 0,
      updated_at: now.toISOString(),
    };
    return settlementStore.addLine(b.partner_id, b.env, period, line, randomUUID(), now);
  },

  /**
   * A cancellation refunding `refundMinor`. While the booking's settlement is
   * a DRAFT its line keeps only what was not refunded. Once it is issued it
   * never changes: the refund becomes a negative ADJUSTMENT line in the open
   * settlement of the cancellation's month.
   */
  async cancelled(b: LedgerBooking, refundMinor: number, now: Date): Promise<LedgerItems> {
    if (!b.settlement_period) return {};
    const charged = toMinor(b.net_amount.amount);
    const s = await settlementStore.get(b.partner_id, b.env, b.settlement_period);
    if (s?.status === 'DRAFT') {
      return settlementStore.changeLine(
        b.partner_id,
        b.env,
        b.settlement_period,
        b.booking_number,
        { status: 'CANCELLED', amount_minor: charged - refundMinor, refund_minor: refundMinor },
        -refundMinor,
        now,
      );
    }
    const period = await openPeriodFrom(b.partner_id, b.env, periodOf(now));
    const line: LedgerLine = {
      kind: 'ADJUSTMENT',
      booking_number: b.booking_number,
      partner_reference: b.partner_reference,
      travel_date: b.travel_date,
      confirmed_at: b.created_at,
      adventure: b.adventure.title,
      status: 'CANCELLED',
      amount_minor: -refundMinor,
      charged_minor: charged,
      refund_minor: refundMinor,
      adjusts: { period: b.settlement_period, number: s?.number ?? null },
      updated_at: now.toISOString(),
    };
    return settlementStore.addLine(b.partner_id, b.env, period, line, randomUUID(), now);
  },

  /** A completed booking: its line says so while the settlement is a DRAFT (no money moves). */
  async completed(b: LedgerBooking, now: Date): Promise<LedgerItems> {
    if (!b.settlement_period) return {};
    const s = await settlementStore.get(b.partner_id, b.env, b.settlement_period);
    if (s?.status !== 'DRAFT') return {};
    return settlementStore.lineStatus(b.partner_id, b.env, b.settlement_period, b.booking_number, 'COMPLETED', now);
  },
};
