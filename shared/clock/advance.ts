import { randomUUID } from 'node:crypto';
import { sleep } from '../db/retry';
import { clockMs } from '../kernel/clock';
import { ApiError } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import type { ClockRecord } from './model';
import { enqueueAdvance } from './queue';
import { MAX_ADVANCE_DAYS } from './schemas';
import { clockStore } from './store';

const DAY_MS = 86_400_000;
/** An advance whose worker made no step for this long died with its retries: the next advance call takes it over. */
export const ADVANCE_STALE_MS = 120_000;
/** How long POST /clock/advance waits for the advance to end before answering `advancing`. */
export const ANSWER_WAIT_MS = 10_000;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Starts moving the tenant's sandbox clock to `to`: the clock stands still at its time now (one conditional
 * write, so of two advances one starts and the other is told the clock is advancing), and the advance is
 * queued for the clock worker, which plays what falls due up to `to`. The same `to` while that advance
 * plays (a retry) answers it again.
 */
export async function startAdvance(t: Tenant, to: string, realNow = new Date()): Promise<ClockRecord> {
  const target = Date.parse(to);
  const toIso = iso(target);
  const current = await clockStore.get(t.partnerId);
  const stale = current?.status === 'advancing' && Date.parse(current.heartbeat_at ?? '') < realNow.getTime() - ADVANCE_STALE_MS;
  if (current?.status === 'advancing' && !stale) {
    if (current.advancing_to === toIso) return current;
    throw advancing(current);
  }
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
    staleBefore: new Date(realNow.getTime() - ADVANCE_STALE_MS),
  });
  if (!started) {
    const other = await clockStore.get(t.partnerId);
    if (other?.status === 'advancing' && other.advancing_to === toIso) return other;
    throw advancing(other);
  }
  await enqueueAdvance({ partner_id: t.partnerId, advance_id: advanceId });
  return started;
}

function advancing(c: ClockRecord | undefined) {
  return new ApiError(
    'clock.advancing',
    `An advance to ${c?.advancing_to ?? 'another time'} is still playing; advance again once GET /test-helpers/clock says ready.`,
    { advancing_to: c?.advancing_to ?? null },
    { 'retry-after': '2' },
  );
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
