import { randomUUID } from 'node:crypto';
import { batchWrite } from '../shared/db/batch';
import type { Table } from '../shared/db/client';
import type { Env } from '../shared/kernel/tenant';
import { settlementKeys } from '../shared/settlements/keys';
import type { LedgerLine } from '../shared/settlements/model';
import { periodStart } from '../shared/settlements/period';

/** How staged bookings read: their adventures' titles (taken in turn) and each one's partner reference. */
export interface LineShape {
  titles: string[];
  reference: (i: number) => string;
}

/**
 * `n` ledger lines of `period` as confirmations leave them, spread over its first 27 days: 200 to 2 000 MAD
 * each, 1 in 10 cancelled before the issue with half refunded, 1 in 3 of the others completed. Their booking
 * numbers are unique at any size (a line's key holds it).
 */
export function ledgerLines(n: number, period: string, shape: LineShape): LedgerLine[] {
  const start = Date.parse(`${periodStart(period)}T00:00:00Z`);
  return Array.from({ length: n }, (_, i) => {
    const charged = 20_000 + ((i * 7919) % 180_000);
    const cancelled = i % 10 === 0;
    const refund = cancelled ? Math.floor(charged / 2) : 0;
    return {
      kind: 'BOOKING',
      // The index in base 36, then 4 random characters.
      booking_number: `PTB-${i.toString(36).toUpperCase().padStart(4, '0')}-${randomUUID().slice(0, 4).toUpperCase()}`,
      partner_reference: shape.reference(i),
      travel_date: periodStart(period),
      confirmed_at: new Date(start + (i * 86_400_000 * 27) / n + 3_600_000).toISOString(),
      adventure: shape.titles[i % shape.titles.length]!,
      status: cancelled ? 'CANCELLED' : i % 3 === 0 ? 'COMPLETED' : 'CONFIRMED',
      amount_minor: charged - refund,
      charged_minor: charged,
      refund_minor: refund,
      updated_at: new Date(start).toISOString(),
    };
  });
}

/**
 * A tenant's DRAFT of `period` holding `lines`, written directly with BatchWriteItem (no booking can be confirmed
 * in the past, and thousands of bookings through the API take minutes): the lines, then the header with their total.
 */
export async function stageDraft(table: Table, partnerId: string, env: Env, period: string, lines: LedgerLine[]) {
  await batchWrite(
    table,
    lines.map((l) => ({ PutRequest: { Item: { ...settlementKeys.bookingLine(partnerId, env, period, l.booking_number), type: 'ledger_line', ...l } } })),
  );
  const total = lines.reduce((sum, l) => sum + l.amount_minor, 0);
  const now = new Date().toISOString();
  const id = randomUUID();
  const header = {
    ...settlementKeys.header(partnerId, env, period),
    ...settlementKeys.byId(id),
    type: 'settlement',
    id,
    partner_id: partnerId,
    env,
    period,
    status: 'DRAFT',
    currency: 'MAD',
    total_minor: total,
    line_count: lines.length,
    booking_count: lines.length,
    created_at: now,
    updated_at: now,
  };
  await batchWrite(table, [{ PutRequest: { Item: header } }]);
  return { id, total };
}
