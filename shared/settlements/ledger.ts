import { randomUUID } from 'node:crypto';
import type { TransactItem } from '../db/client';
import { type Money, toMinor } from '../kernel/money';
import type { Env } from '../kernel/tenant';
import type { LedgerLine, SettlementRecord } from './model';
import { nextPeriod, type Period, periodOf } from './period';
import { settlementStore } from './store';

/**
 * The settlement ledger as the bookings write it: each change of a booking
 * that moves money for a settlement adds one item to the booking's own
 * transaction, its line (keyed by the booking number), so the ledger and the
 * bookings never disagree. No item of the settlement itself is in that
 * transaction: two bookings of one partner never share an item, and never
 * collide in DynamoDB (docs/architecture.md, "The settlement ledger").
 * Which period a line goes to is decided before the transaction, from the
 * change's instant and the settlement's state (read, not written).
 * Settlements never read the bookings.
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

export type LedgerItems = Partial<Record<'line', TransactItem>>;

/** Periods a sandbox tenant closed early (a test helper) stay closed: at most this many are skipped to find an open one. */
const MAX_CLOSED_AHEAD = 24;

/** A period takes new lines while its settlement is a DRAFT whose close has not begun (or before its DRAFT exists). */
export const takesLines = (s: SettlementRecord | undefined) => !s || (s.status === 'DRAFT' && !s.closing_at);

/** The first period from `p` on that still takes lines, and its settlement item (none yet: undefined). */
export async function openPeriodFrom(partnerId: string, env: Env, p: Period): Promise<{ period: Period; draft?: SettlementRecord }> {
  for (let i = 0; i < MAX_CLOSED_AHEAD; i++, p = nextPeriod(p)) {
    const s = await settlementStore.header(partnerId, env, p);
    if (takesLines(s)) return { period: p, draft: s };
  }
  throw new Error(`no open settlement period within ${MAX_CLOSED_AHEAD} months of ${p}`);
}

/** The period a line written `now` goes to, its DRAFT created first if this is its first line (in a transaction of its own). */
async function draftFor(partnerId: string, env: Env, now: Date): Promise<Period> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const { period, draft } = await openPeriodFrom(partnerId, env, periodOf(now));
    if (draft) return period;
    // Created by this writer or by another one at the same instant: read again either way.
    await settlementStore.open(partnerId, env, period, randomUUID(), now);
  }
  throw new Error(`settlement ${partnerId}/${env}: the DRAFT of ${periodOf(now)} could not be created`);
}

export const settlementLedger = {
  /** The period of a booking confirmed `now`: its month in Morocco, or the next open one if that month was closed early (sandbox). */
  periodFor: (now: Date): Period => periodOf(now),

  /** A confirmed booking: its line, for the amount charged to the end customer, in the period that takes lines now. */
  async confirmed(b: Omit<LedgerBooking, 'settlement_period'>, now: Date): Promise<{ period: Period; items: LedgerItems }> {
    const period = await draftFor(b.partner_id, b.env, now);
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
    return { period, items: { line: settlementStore.addLine(b.partner_id, b.env, period, line) } };
  },

  /**
   * A cancellation refunding `refundMinor`. While the booking's period is the
   * one that takes lines now, its line keeps only what was not refunded.
   * Otherwise (its settlement is issued or closing, or its month is over)
   * that settlement never changes: the refund becomes a negative ADJUSTMENT
   * line in the period that takes lines now.
   */
  async cancelled(b: LedgerBooking, refundMinor: number, now: Date): Promise<LedgerItems> {
    if (!b.settlement_period) return {};
    const charged = toMinor(b.net_amount.amount);
    const period = await draftFor(b.partner_id, b.env, now);
    if (period === b.settlement_period) {
      return {
        line: settlementStore.changeLine(
          b.partner_id,
          b.env,
          period,
          b.booking_number,
          { status: 'CANCELLED', amount_minor: charged - refundMinor, refund_minor: refundMinor },
          now,
        ),
      };
    }
    const invoiced = await settlementStore.header(b.partner_id, b.env, b.settlement_period);
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
      adjusts: { period: b.settlement_period, number: invoiced?.number ?? null },
      updated_at: now.toISOString(),
    };
    return { line: settlementStore.addLine(b.partner_id, b.env, period, line) };
  },

  /** A completed booking: its line says so while its period is the one that takes lines now (no money moves). */
  async completed(b: LedgerBooking, now: Date): Promise<LedgerItems> {
    if (!b.settlement_period) return {};
    const { period } = await openPeriodFrom(b.partner_id, b.env, periodOf(now));
    if (period !== b.settlement_period) return {};
    return { line: settlementStore.changeLine(b.partner_id, b.env, period, b.booking_number, { status: 'COMPLETED' }, now) };
  },
};
