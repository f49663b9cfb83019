import { AsyncLocalStorage } from 'node:async_hooks';
import type { Tenant } from './tenant';

/**
 * A partner's sandbox clock (docs/guides/sandbox.md, "The sandbox clock"). Ready, it runs with real time,
 * `offset_ms` ahead of it; while an advance plays the due work, it stands still at `frozen_at` (the instant
 * being played), so everything that work records carries that instant.
 */
export interface ClockState {
  offset_ms: number;
  status: 'ready' | 'advancing';
  frozen_at?: string;
}

/** The clock's time, in epoch milliseconds, when real time is `realMs`. No clock: real time. */
export function clockMs(c: ClockState | undefined, realMs = Date.now()): number {
  if (!c) return realMs;
  // Never behind where it ran before the advance (an advance that stalled does not hold the clock back).
  if (c.status === 'advancing' && c.frozen_at) return Math.max(Date.parse(c.frozen_at), realMs + c.offset_ms);
  return realMs + c.offset_ms;
}

/**
 * The time as the tenant's rules read it: its sandbox clock's, real time in live (and in a sandbox whose
 * clock was never advanced). Only forward: a clock never goes back.
 */
export function tenantNow(t: Pick<Tenant, 'clockOffsetMs'>): Date {
  return new Date(Date.now() + (t.clockOffsetMs ?? 0));
}

/**
 * An instant for the sweeper's real-time indexes: a sandbox clock ahead of real time keys its due-now events and
 * deliveries at real now, so that one whose queue message was lost is still re-driven.
 */
export const notAfterNow = (iso: string) => new Date(Math.min(Date.parse(iso), Date.now())).toISOString();

const leads = new AsyncLocalStorage<number>();

/**
 * Runs `fn` (synchronous: the request's validation) with the caller's clock lead, for the rules that have no
 * tenant at hand: the input bounds of dates (a sandbox a year ahead books a year ahead).
 */
export const withClockLead = <T>(leadMs: number, fn: () => T): T => leads.run(leadMs, fn);

/** The lead of the clock of the request being validated (withClockLead); 0 elsewhere. */
export const clockLeadMs = () => leads.getStore() ?? 0;
