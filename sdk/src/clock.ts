import type { components } from './generated/schema';

/** The sandbox clock as `GET /test-helpers/clock` answers it. */
export type SandboxClock = components['schemas']['SandboxClock'];
export type ReadySandboxClock = SandboxClock & { status: 'ready'; advancing_to: null };

export interface WaitUntilReadyOptions {
  /** How long to read the clock for `ready` before giving up with SandboxClockTimeoutError; default 120 s. */
  timeoutMs?: number;
  /** Between two reads; default 1 s. */
  intervalMs?: number;
}

export interface AdvanceSandboxClockArgs {
  /** Where to move your sandbox: after the clock's now, at most 90 days after it. */
  to: Date | string;
  /**
   * The service answers `advancing` when the due work takes over 10 s: with this, the clock is read
   * (GET) until it says `ready`, bounded by `timeoutMs`, and the ready clock is returned.
   */
  waitUntilReady?: boolean | WaitUntilReadyOptions;
  /** The Idempotency-Key of this advance; a UUID v4 is generated when absent. Kept across retries. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** `client.testHelpers.clock`: the sandbox clock (docs/guides/sandbox.md, "The sandbox clock"). */
export interface SandboxClockHelpers {
  get(args?: { signal?: AbortSignal }): Promise<SandboxClock>;
  advance(args: AdvanceSandboxClockArgs & { waitUntilReady: true | WaitUntilReadyOptions }): Promise<ReadySandboxClock>;
  advance(args: AdvanceSandboxClockArgs): Promise<SandboxClock>;
}

/** An advance was asked to wait until ready and the clock still said `advancing` at the deadline. */
export class SandboxClockTimeoutError extends Error {
  override readonly name = 'SandboxClockTimeoutError';
  constructor(readonly clock: SandboxClock) {
    super(`the sandbox clock is still advancing to ${clock.advancing_to} (at ${clock.now}): read it again later with client.testHelpers.clock.get()`);
  }
}

/** What the helpers need of the client: its two clock operations, and its (injectable) sleep and time. */
export interface ClockTransport {
  get(signal?: AbortSignal): Promise<SandboxClock>;
  advance(to: string, idempotencyKey?: string, signal?: AbortSignal): Promise<SandboxClock>;
  sleep(ms: number): Promise<void>;
  now(): number;
}

const isReady = (c: SandboxClock): c is ReadySandboxClock => c.status === 'ready';

export function sandboxClock(t: ClockTransport): SandboxClockHelpers {
  return {
    get: (args) => t.get(args?.signal),
    advance: (async ({ to, waitUntilReady, idempotencyKey, signal }: AdvanceSandboxClockArgs) => {
      if (to instanceof Date && Number.isNaN(to.getTime())) throw new RangeError('clock.advance: `to` is an invalid Date');
      const at = typeof to === 'string' ? to : to.toISOString();
      let clock = await t.advance(at, idempotencyKey, signal);
      if (!waitUntilReady || isReady(clock)) return clock;
      const { timeoutMs = 120_000, intervalMs = 1_000 } = waitUntilReady === true ? {} : waitUntilReady;
      for (const deadline = t.now() + timeoutMs; !isReady(clock); ) {
        if (t.now() >= deadline) throw new SandboxClockTimeoutError(clock);
        await t.sleep(intervalMs);
        signal?.throwIfAborted();
        clock = await t.get(signal);
      }
      return clock;
    }) as SandboxClockHelpers['advance'],
  };
}
