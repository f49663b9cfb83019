import { accessStore } from '../access/store';
import { ENVS, type Env } from '../kernel/tenant';
import { localDate } from '../kernel/time';
import { periodOfDate, previousPeriod } from './period';
import { enqueueSettlementRuns, type SettlementMessage } from './queue';

/*
 * Which tenants and months a settlement run covers, and its dispatch through
 * the queue. Kept out of run.ts, which renders the documents (issue.ts), so
 * that the cron function that only enqueues does not bundle pdfkit.
 */

/** The period the monthly job closes when it runs on `date` (YYYY-MM-DD, Morocco): every month before it. */
export const throughPeriodFor = (date: string) => previousPeriod(periodOfDate(date));

/** Every tenant the job visits: each partner, live and sandbox. */
export async function tenants(only?: { partnerId?: string; env?: Env }) {
  const partners = only?.partnerId ? [only.partnerId] : (await accessStore.listPartners()).map((p) => p.partner_id);
  return partners.flatMap((partner_id) => ENVS.filter((e) => !only?.env || e === only.env).map((env) => ({ partner_id, env })));
}

/** The cron (the 1st, 01:30 UTC = 02:30 in Morocco): one queue message per partner and environment for the months before today. */
export async function dispatchSettlementRun(now = new Date()) {
  const through = throughPeriodFor(localDate(now));
  const messages: SettlementMessage[] = (await tenants()).map((t) => ({ ...t, through_period: through }));
  await enqueueSettlementRuns(messages);
  return { through_period: through, tenants: messages.length };
}

/** The same run through the queue, as the cron does it: one message per tenant. */
export async function enqueueSettlements(o: { date: string; partnerId?: string; env?: Env }) {
  const through = throughPeriodFor(o.date);
  const messages = (await tenants({ partnerId: o.partnerId, env: o.env })).map((t) => ({ ...t, through_period: through }));
  await enqueueSettlementRuns(messages);
  return { through_period: through, enqueued: messages };
}
