import { randomUUID } from 'node:crypto';
import { dataTable, type Seal, transact, unsealed } from '../db/client';
import { recordEvent } from '../events/record';
import { tenantNow } from '../kernel/clock';
import { ApiError, notFound } from '../kernel/errors';
import { countEvent } from '../kernel/metrics';
import { formatMinor, money } from '../kernel/money';
import type { Tenant } from '../kernel/tenant';
import { publishEvents } from '../webhooks/queue';
import type { SettlementRecord } from './model';
import { getSettlement } from './read';
import { settlementStore } from './store';

const notPayable = (s: SettlementRecord) =>
  new ApiError(
    'settlement.transition.invalid',
    s.status === 'PAID'
      ? `Settlement ${s.number} is already PAID (transfer ${s.transfer_reference}, ${s.paid_at}).`
      : `Settlement ${s.id} is a DRAFT: only an ISSUED settlement can be paid.`,
    { status: s.status, allowed_from: ['ISSUED'] },
  );

/**
 * ISSUED -> PAID: the receipt of the partner's transfer, for exactly the total
 * due, with settlement.paid in the same transaction. Any other transition is
 * refused (409), and so is a different amount (422): nothing is recorded then.
 */
export async function paySettlement(
  s: SettlementRecord,
  transferReference: string,
  amountMinor: number,
  seal: Seal<SettlementRecord> = unsealed,
  now = new Date(),
): Promise<SettlementRecord> {
  if (s.status !== 'ISSUED') throw notPayable(s);
  if (amountMinor !== s.total_minor) {
    throw new ApiError(
      'settlement.amount.mismatch',
      `The amount received, ${formatMinor(amountMinor)} MAD, differs from the total due of settlement ${s.number}, ${formatMinor(s.total_minor)} MAD: ` +
        'nothing was recorded. Record a transfer of exactly the total due.',
      { amount_received: money(amountMinor), total_due: money(s.total_minor), difference: money(amountMinor - s.total_minor) },
    );
  }
  const paidAt = now.toISOString();
  const result: SettlementRecord = {
    ...s,
    status: 'PAID',
    paid_at: paidAt,
    transfer_reference: transferReference,
    amount_received_minor: amountMinor,
    updated_at: now.toISOString(),
  };
  const event = recordEvent(
    s.partner_id,
    s.env,
    'settlement.paid',
    {
      settlement_id: s.id,
      number: s.number!, // an ISSUED settlement has its number
      status: 'PAID',
      paid_at: paidAt,
      transfer_reference: transferReference,
      amount_received: money(amountMinor),
    },
    now,
  );
  const cancelled = await transact(
    dataTable.client,
    { settlement: settlementStore.paid(s, transferReference, amountMinor, now) },
    [event.item],
    seal.items(result),
  );
  if (cancelled) {
    const fresh = await settlementStore.get(s.partner_id, s.env, s.period);
    throw notPayable(fresh ?? s);
  }
  await publishEvents([event]);
  countEvent('SettlementsPaid', s.env);
  return result;
}

/** Test helper: a simulated transfer of exactly the total due, received at the sandbox clock's time (after the issue it pays). */
export async function paySettlementNow(t: Tenant, id: string, reference: string | undefined, seal: Seal<SettlementRecord>, now = tenantNow(t)) {
  const s = await getSettlement(t, id);
  return paySettlement(s, reference ?? `SIMULATED-${randomUUID().slice(0, 8).toUpperCase()}`, s.total_minor, seal, now);
}

/** The operators record a partner's transfer (admin command). */
export async function payByOperator(id: string, reference: string, amountMinor: number) {
  const s = await settlementStore.findById(id);
  if (!s) throw notFound('Settlement', id);
  return paySettlement(s, reference, amountMinor);
}
