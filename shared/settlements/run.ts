import { tenantTime } from '../clock/store';
import type { Seal } from '../db/client';
import { tenantNow } from '../kernel/clock';
import { ApiError } from '../kernel/errors';
import type { Env, Tenant } from '../kernel/tenant';
import { settleTenant, type TenantRun } from './issue';
import type { SettlementRecord } from './model';
import { periodOf } from './period';
import type { SettlementMessage } from './queue';
import { tenants, throughPeriodFor } from './schedule';
import { settlementStore } from './store';

export type { SettlementMessage };

/** The queue consumer's work for one message. */
// A sandbox's settlements are issued at its clock's time (an advanced sandbox is ahead of the monthly job).
export const settleFromMessage = async (m: SettlementMessage) =>
  settleTenant(m.partner_id, m.env, m.through_period, undefined, await tenantTime(m.partner_id, m.env));

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
  /** Completed by this run: documents stored and settlement.issued recorded (numbered by this run or an earlier one). */
  settlements: SettlementRecord[];
  /** The numbers this run took. */
  issued: string[];
  error?: string;
}

/** What a run did, counted apart: numbers taken, settlements completed (some numbered by an earlier, stopped run), tenants failed. */
export function runCounts(tenants: TenantOutcome[]) {
  return {
    issued: tenants.reduce((n, t) => n + t.issued.length, 0),
    completed: tenants.reduce((n, t) => n + t.settlements.length, 0),
    failed: tenants.filter((t) => t.error).length,
  };
}

/** One tenant's progress line: what it issued, and what it completed that an earlier run had issued. */
function progressLine(r: TenantRun): string {
  if (r.settlements.length === 0) return r.issued.length ? `issued ${r.issued.join(', ')} (documents pending)` : 'nothing to issue';
  return r.settlements
    .map(
      (s) =>
        `${r.issued.includes(s.number!) ? 'issued' : 'completed'} ${s.number} for ${s.period} (${s.booking_count} bookings, ${(s.total_minor / 100).toFixed(2)} MAD)`,
    )
    .join('; ');
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
        const r: TenantRun = await settleTenant(t.partner_id, t.env, through, undefined, await tenantTime(t.partner_id, t.env));
        out.push({ partner_id: t.partner_id, env: t.env, settlements: r.settlements, issued: r.issued });
        o.progress?.(`${t.partner_id} ${t.env}: ${progressLine(r)}`);
      } catch (e) {
        out.push({ partner_id: t.partner_id, env: t.env, settlements: [], issued: [], error: (e as Error).message });
        o.progress?.(`${t.partner_id} ${t.env}: FAILED: ${(e as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency ?? 4, list.length)) }, worker));
  return { through_period: through, tenants: out };
}

/**
 * Test helper: the job for the caller's sandbox tenant, now. Closes every
 * open settlement up to `period`, by default up to the latest closable one,
 * so that bookings made a minute ago are issued. The latest closable period
 * is the later of the running month and the latest DRAFT: a month closed
 * early sends the bookings after it to the next month's DRAFT, which can
 * then be closed too, by default or by naming it. A later period: 422.
 */
export async function runSandboxSettlements(t: Tenant, period: string | undefined, seal: Seal<SettlementRecord[]>, now = tenantNow(t)) {
  const running = periodOf(now);
  const drafts = (await settlementStore.allForTenant(t.partnerId, t.env)).filter((s) => s.status === 'DRAFT').map((s) => s.period);
  const latest = [running, ...drafts].sort().at(-1)!;
  if (period && period > latest) {
    throw new ApiError(
      'settlement.period.not_closable',
      `Period ${period} cannot be closed yet: the latest period that can be closed is ${latest} (the running month ${running}, or a later month that holds a DRAFT).`,
      { period, running_period: running, latest_closable_period: latest },
    );
  }
  const through = period ?? latest;
  return (await settleTenant(t.partnerId, t.env, through, seal, now)).settlements;
}
