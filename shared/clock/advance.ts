import { randomUUID } from 'node:crypto';
import { sleep } from '../db/retry';
import { clockMs } from '../kernel/clock';
import { ApiError } from '../kernel/errors';
import { logger } from '../kernel/logger';
import type { Tenant } from '../kernel/tenant';
import type { ClockRecord } from './model';
import { enqueueAdvance } from './queue';
import { MAX_ADVANCE_DAYS } from './schemas';
import { clockStore } from './store';

const DAY_MS = 86_400_000;
/**
 * An advance whose worker made no step for this long died (a crash, a timeout) or lost its message: the sweeper
 * (every 5 minutes), a restart of the local stack or the next advance call takes it over. A step takes at most
 * about a minute (its instant settles within SETTLE_MS).
 */
export const ADVANCE_STALE_MS = 120_000;
/** How long POST /clock/advance waits for the advance to end before answering `advancing`. */
export const ANSWER_WAIT_MS = 10_000;

const iso = (ms: number) => new Date(ms).toISOString();

const idleBefore = (realNow: Date) => new Date(realNow.getTime() - ADVANCE_STALE_MS);
const isIdle = (c: ClockRecord | undefined, realNow: Date) => c?.status === 'advancing' && Date.parse(c.heartbeat_at ?? '') < idleBefore(realNow).getTime();
/** The advance, taken over and queued again when it is idle; as it is otherwise (or when another caller took it over first). */
const resumeIfIdle = async (c: ClockRecord, realNow: Date) => (isIdle(c, realNow) && (await resumeAdvance(c, idleBefore(realNow), realNow))) || c;

/**
 * Starts moving the tenant's sandbox clock to `to`: the clock stands still at its time now (one conditional
 * write, so of two advances one starts and the other is told the clock is advancing), and the advance is
 * queued for the clock worker, which plays what falls due up to `to`. The same `to` while that advance
 * plays (a retry) answers it again, and resumes it when its worker is gone (even stopped at `to`).
 */
export async function startAdvance(t: Tenant, to: string, realNow = new Date()): Promise<ClockRecord> {
  const target = Date.parse(to);
  const toIso = iso(target);
  const current = await clockStore.get(t.partnerId);
  // The same advance, asked again: it goes on (taken over when its worker is gone), even one stopped at its `to`.
  if (current?.status === 'advancing' && current.advancing_to === toIso) return resumeIfIdle(current, realNow);
  const stale = isIdle(current, realNow);
  if (current?.status === 'advancing' && !stale) throw advancing(current);
  const now = clockMs(current, realNow.getTime());
  if (target <= now) {
    throw new ApiError('clock.advance.backwards', `The sandbox clock is at ${iso(now)} and moves forward only: send a \`to\` after it.`, {
      now: iso(now),
      to: toIso,
    });
  }
  const latest = now + MAX_ADVANCE_DAYS * DAY_MS;
  if (target > latest) {
    throw new ApiError(
      'clock.advance.too_far',
      `One advance moves the clock at most ${MAX_ADVANCE_DAYS} days: from ${iso(now)}, at most to ${iso(latest)}. Advance in steps.`,
      { now: iso(now), to: toIso, latest_to: iso(latest) },
    );
  }
  const advanceId = randomUUID();
  const started = await clockStore.start(t.partnerId, {
    from: iso(now),
    to: toIso,
    advanceId,
    realNow,
    staleBefore: idleBefore(realNow),
  });
  if (!started) {
    const other = await clockStore.get(t.partnerId);
    if (other?.status === 'advancing' && other.advancing_to === toIso) return other;
    throw advancing(other);
  }
  await enqueueAdvance({ partner_id: t.partnerId, advance_id: advanceId });
  return started;
}

/**
 * Takes over an advance whose worker made no step since `staleBefore` and queues it again: the worker goes on
 * from the instant the clock shows (shared/clock/play.ts). Undefined when it moved meanwhile (stepped, ended, or
 * taken over by another caller).
 */
export async function resumeAdvance(c: ClockRecord, staleBefore: Date, realNow = new Date()): Promise<ClockRecord | undefined> {
  if (c.status !== 'advancing' || !c.advance_id) return undefined;
  const resumed = await clockStore.takeOver(c.partner_id, c.advance_id, { newId: randomUUID(), staleBefore, realNow });
  if (!resumed) return undefined;
  logger.warn('sandbox clock advance resumed', { partner_id: c.partner_id, at: c.frozen_at, to: c.advancing_to, idle_since: c.heartbeat_at });
  await enqueueAdvance({ partner_id: c.partner_id, advance_id: resumed.advance_id! });
  return resumed;
}

/**
 * Resumes every advance whose worker made no step since `staleBefore`: the sweeper's (2 minutes), the local
 * stack's at boot (its start: no worker of the run before survives). Its count.
 */
export async function resumeIdleAdvances(staleBefore: Date, realNow = new Date()): Promise<number> {
  let resumed = 0;
  for await (const partners of clockStore.idleSince(staleBefore)) {
    for (const partnerId of partners) {
      // The index lags: the clock itself says whether it is still idle (the take-over's condition).
      const c = await clockStore.get(partnerId);
      if (c && (await resumeAdvance(c, staleBefore, realNow))) resumed++;
    }
  }
  return resumed;
}

function advancing(c: ClockRecord | undefined) {
  return new ApiError(
    'clock.advancing',
    `An advance to ${c?.advancing_to ?? 'another time'} is still playing; advance again once GET /test-helpers/clock says ready.`,
    { advancing_to: c?.advancing_to ?? null },
    { 'retry-after': '2' },
  );
}

/**
 * The clock for a retry of an advance to `to` that already started (the same Idempotency-Key): that advance as it
 * stands, taken over when its worker is gone; the clock as it is when it moved on since.
 */
export async function currentAdvance(t: Tenant, to: string, realNow = new Date()): Promise<ClockRecord | undefined> {
  const c = await clockStore.get(t.partnerId);
  return c?.status === 'advancing' && c.advancing_to === iso(Date.parse(to)) ? resumeIfIdle(c, realNow) : c;
}

/** The clock once its advance ended, or as it stands after `waitMs`. */
export async function awaitAdvance(partnerId: string, started: ClockRecord, waitMs = ANSWER_WAIT_MS): Promise<ClockRecord | undefined> {
  const deadline = Date.now() + waitMs;
  let c: ClockRecord | undefined = started;
  while (c?.status === 'advancing' && c.advance_id === started.advance_id && Date.now() < deadline) {
    await sleep(200);
    c = await clockStore.get(partnerId);
  }
  return c;
}
