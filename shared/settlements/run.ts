import { randomUUID } from 'node:crypto';
import { accessStore } from '../access/store';
import type { Seal } from '../db/client';
import { ApiError, notFound } from '../kernel/errors';
import { ENVS, type Env, type Tenant } from '../kernel/tenant';
import { localDate } from '../kernel/time';
import { settleTenant, type TenantRun } from './issue';
import type { SettlementRecord } from './model';
import { paySettlement } from './pay';
import { periodOf, periodOfDate, previousPeriod } from './period';
import { enqueueSettlementRuns, type SettlementMessage } from './queue';
import { getSettlement } from './read';
import { settlementStore } from './store';

export type { SettlementMessage };

/** The period the monthly job closes when it runs on `date` (YYYY-MM-DD, Morocco): every month before it. */
export const throughPeriodFor = (date: string) => previousPeriod(periodOfDate(date));

/** Every tenant the job visits: each partner, live and sandbox. */
async function tenants(only?: { partnerId?: string; env?: Env }) {
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

/** The queue consumer's work for one message. */
export const settleFromMessage = (m: SettlementMessage) => settleTenant(m.partner_id, m.env, m.through_period);

export interface RunOptions {
  /** The job's date: closes the periods before it. */
  date: string;
  partnerId?: string;
  env?: Env;
  /** Tenants settled at once. */
  concurrency?: number;
  progress?: (line: string) => void;
}

export interface TenantOutcome {
  partner_id: string;
  env: Env;
  settlements: SettlementRecord[];
  error?: string;
}

/**
 * The job in this process (the admin command): every tenant, a few at a
 * time; a tenant that fails is reported and the others go on. Running it
 * again issues nothing twice and finishes what a stopped run left.
 */
export async function runSettlements(o: RunOptions): Promise<{ through_period: string; tenants: TenantOutcome[] }> {
  const through = throughPeriodFor(o.date);
  const list = await tenants({ partnerId: o.partnerId, env: o.env });
  const out: TenantOutcome[] = [];
  let next = 0;
  const worker = async () => {
    while (next < list.length) {
      const t = list[next++]!;
      try {
        const r: TenantRun = await settleTenant(t.partner_id, t.env, through);
        out.push({ partner_id: t.partner_id, env: t.env, settlements: r.settlements });
        o.progress?.(
          `${t.partner_id} ${t.env}: ${
            r.settlements.length
              ? r.settlements.map((s) => `issued ${s.number} for ${s.period} (${s.booking_count} bookings, ${(s.total_minor / 100).toFixed(2)} MAD)`).join('; ')
              : 'nothing to issue'
          }`,
        );
      } catch (e) {
        out.push({ partner_id: t.partner_id, env: t.env, settlements: [], error: (e as Error).message });
        o.progress?.(`${t.partner_id} ${t.env}: FAILED: ${(e as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency ?? 4, list.length)) }, worker));
  return { through_period: through, tenants: out };
}

/** The same run through the queue, as the cron does it: one message per tenant. */
export async function enqueueSettlements(o: Omit<RunOptions, 'concurrency' | 'progress'>) {
  const through = throughPeriodFor(o.date);
  const messages = (await tenants({ partnerId: o.partnerId, env: o.env })).map((t) => ({ ...t, through_period: through }));
  await enqueueSettlementRuns(messages);
  return { through_period: through, enqueued: messages };
}

/**
 * Test helper: the job for the caller's sandbox tenant, now. Closes every
 * open settlement up to `period`; by default up to the latest open one (the
 * running month, or a later one that bookings reached after an early close),
 * so that bookings made a minute ago are issued.
 */
export async function runSandboxSettlements(t: Tenant, period: string | undefined, seal: Seal<SettlementRecord[]>, now = new Date()) {
  const running = periodOf(now);
  if (period && period > running) {
    throw new ApiError('settlement.period.not_closable', `Period ${period} has not started: the latest period that can be closed is ${running}.`, {
      period,
      running_period: running,
    });
  }
  const drafts = (await settlementStore.allForTenant(t.partnerId, t.env)).filter((s) => s.status === 'DRAFT').map((s) => s.period);
  const through = period ?? [running, ...drafts].sort().at(-1)!;
  return (await settleTenant(t.partnerId, t.env, through, seal, now)).settlements;
}

/** Test helper: a simulated transfer of exactly the total due. */
export async function paySettlementNow(t: Tenant, id: string, reference: string | undefined, seal: Seal<SettlementRecord>) {
  const s = await getSettlement(t, id);
  return paySettlement(s, reference ?? `SIMULATED-${randomUUID().slice(0, 8).toUpperCase()}`, s.total_minor, seal);
}

/** The operators record a partner's transfer (admin command). */
export async function payByOperator(id: string, reference: string, amountMinor: number) {
  const s = await settlementStore.findById(id);
  if (!s) throw notFound('Settlement', id);
  return paySettlement(s, reference, amountMinor);
}
