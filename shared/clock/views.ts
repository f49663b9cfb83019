import type * as z from 'zod';
import { clockMs } from '../kernel/clock';
import { localToInstant } from '../kernel/time';
import { nextPeriod, periodOf, periodStart } from '../settlements/period';
import type { ClockRecord } from './model';
import type { SandboxClock } from './schemas';

/** The clock as GET /test-helpers/clock shows it, when real time is `realMs`. */
export function clockView(c: ClockRecord | undefined, realMs = Date.now()): z.infer<typeof SandboxClock> {
  const now = clockMs(c, realMs);
  return {
    now: new Date(now).toISOString(),
    status: c?.status ?? 'ready',
    advanced_by_seconds: Math.max(0, Math.floor((now - realMs) / 1000)),
    advancing_to: c?.status === 'advancing' ? (c.advancing_to ?? null) : null,
    next_month_starts_at: localToInstant(periodStart(nextPeriod(periodOf(new Date(now))))).toISOString(),
  };
}
