import * as z from 'zod';
import { pub } from '../http/data-class';

/** The most one advance moves the clock: a month-end and a full retry schedule fit many times over. */
export const MAX_ADVANCE_DAYS = 90;

export const SandboxClock = z
  .object({
    now: pub(z.iso.datetime()).describe("The sandbox's time: what every rule of your sandbox reads, and what it records as created_at"),
    status: pub(z.enum(['ready', 'advancing'])).describe(
      'ready: the clock runs with real time; advancing: an advance is playing what falls due, and the clock stands at the instant being played',
    ),
    advanced_by_seconds: pub(z.number().int().min(0)).describe("How far the sandbox's time is ahead of real time, in whole seconds"),
    advancing_to: pub(z.iso.datetime()).nullable().describe('Where the advance under way stops; null when ready'),
    next_month_starts_at: pub(z.iso.datetime()).describe(
      "The 1st of the month after the clock's now, 00:00 Morocco time, as the service's time-zone data has it: where the month closes (advance to it, or past it, to issue the month)",
    ),
  })
  .meta({ id: 'SandboxClock' });

export const AdvanceClockBody = z
  .object({
    to: pub(z.iso.datetime({ offset: true })).describe(`The time to move the sandbox to: after the clock's now, at most ${MAX_ADVANCE_DAYS} days after it`),
  })
  .strict()
  .meta({ id: 'AdvanceSandboxClockRequest' });
