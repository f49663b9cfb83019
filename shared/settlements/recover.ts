import { tenants } from './schedule';
import { settlementStore } from './store';

/**
 * After a restart of the local stack: the settlements a killed run issued
 * (number taken, status ISSUED) without storing their documents get them now,
 * with settlement.issued. In AWS the queue redelivers the run's message and the
 * run finishes them; the local queue lives in memory, so its messages die with
 * the process. Returns the numbers completed. Safe with a run going on at the
 * same time: each settlement records its documents once.
 */
export async function completeIssuedSettlements(now = new Date()): Promise<string[]> {
  const done: string[] = [];
  for (const t of await tenants()) {
    const pending = (await settlementStore.allForTenant(t.partner_id, t.env)).filter((s) => s.status !== 'DRAFT' && s.documents_status === 'PENDING');
    if (pending.length === 0) continue;
    // The documents bundle pdfkit: loaded only when there is something to render.
    const { storeDocuments } = await import('./issue');
    for (const s of pending) if ((await storeDocuments(s, undefined, now)).stored) done.push(s.number!);
  }
  return done;
}
