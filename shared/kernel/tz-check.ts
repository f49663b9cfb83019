import type { MiddlewareObj } from '@middy/core';
import { logger } from './logger';
import { emit } from './metrics';
import { offsetMs, SERVICE_TZ, zoneInUse } from './time';
import { TZ_RULES } from './tz-rules';

/**
 * The check of the runtime's time-zone data. The service computes Morocco's
 * time from its bundled rules (time.ts), so a runtime whose ICU data is older
 * or newer changes nothing the service computes; but it tells that the rules
 * and the runtime disagree, and one of them is out of date: either IANA
 * published a change the bundled rules lack (bump moment-timezone), or the
 * runtime is behind (Lambda's managed runtime, updated on its own schedule).
 *
 * The comparison costs tens of milliseconds (an Intl formatter with a time
 * zone, then a thousand offsets: docs/performance.md, "Morocco's time"), so it
 * runs after an answer, never before one: the first answer of a process that computed
 * Morocco's time arms it, and it reports again every hour while the process
 * lives, so that the alarm on TzDataMismatch follows the runtimes that run.
 */

const SECOND = 1000;
const DAY = 86_400_000;
/** The instants compared: one year back and two ahead (the booking horizon is a year, the sandbox clock 90 days more). */
export const CHECK_WINDOW = { backDays: 366, aheadDays: 731 };
/** How often a process reports the check's figure again. */
export const REPORT_EVERY_MS = 3_600_000;

let formatter: Intl.DateTimeFormat | undefined;
/** Morocco's offset at an instant as the runtime's own data (Intl, ICU) has it, in ms, to the second. */
export function runtimeOffsetMs(instant: number): number {
  formatter ??= new Intl.DateTimeFormat('en-US', {
    timeZone: SERVICE_TZ,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const p = Object.fromEntries(formatter.formatToParts(new Date(instant)).map((x) => [x.type, x.value]));
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return asUtc - Math.floor(instant / SECOND) * SECOND;
}

export interface RulesDifference {
  /** The first instant of the window at which the runtime's offset differs from the bundled rules, to the second. */
  at: string;
  runtime_offset: string;
  bundled_offset: string;
}

const utcOffset = (ms: number) => {
  const m = Math.round(Math.abs(ms) / 60_000);
  return `${ms < 0 ? '-' : '+'}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
};

/**
 * Compares the runtime's offsets for Morocco with the bundled rules around
 * `now`: at every change of the rules in the window (and the second before
 * it), and once a day; the first difference is then narrowed to the second.
 */
export function compareRuntimeRules(now = Date.now()): RulesDifference | undefined {
  const from = Math.floor(now / DAY) * DAY - CHECK_WINDOW.backDays * DAY;
  const to = from + (CHECK_WINDOW.backDays + CHECK_WINDOW.aheadDays) * DAY;
  const points = new Set<number>();
  for (let t = from; t <= to; t += DAY) points.add(t);
  for (const [change] of TZ_RULES.changes) {
    const t = Date.parse(change);
    if (t > from && t <= to) points.add(t - SECOND).add(t);
  }
  const differs = (t: number) => runtimeOffsetMs(t) !== offsetMs(t);
  let agreed: number | undefined;
  for (const t of [...points].sort((a, b) => a - b)) {
    if (!differs(t)) {
      agreed = t;
      continue;
    }
    let first = t;
    // Between the last instant that agreed and this one: the second the difference begins.
    for (let lo = agreed ?? t; first - lo > SECOND; ) {
      const mid = lo + Math.floor((first - lo) / 2 / SECOND) * SECOND;
      if (differs(mid)) first = mid;
      else lo = mid;
    }
    return { at: new Date(first).toISOString(), runtime_offset: utcOffset(runtimeOffsetMs(first)), bundled_offset: utcOffset(offsetMs(first)) };
  }
  return undefined;
}

let result: { difference?: RulesDifference; error?: string } | undefined;

/**
 * Compares once per process (then reuses the outcome) and reports it: the
 * metric TzDataMismatch, 1 when the runtime differs (or cannot say) and 0 when
 * it agrees, and a warning with both versions and the first instant that
 * differs. Never throws: it runs outside any request.
 */
export function reportRuntimeRules(now = Date.now()): RulesDifference | undefined {
  try {
    result ??= { difference: compareRuntimeRules(now) };
  } catch (e) {
    result = { error: (e as Error).message };
  }
  const { difference, error } = result;
  const facts = { runtime_tz: process.versions.tz ?? 'unknown', node: process.version, rules: `${TZ_RULES.version} (${TZ_RULES.source})` };
  if (difference || error) {
    logger.warn(`the runtime's time-zone data differs from the service's ${SERVICE_TZ} rules`, {
      ...facts,
      ...(difference ? { first_difference: difference.at, runtime_offset: difference.runtime_offset, bundled_offset: difference.bundled_offset } : { error }),
    });
  }
  emit({}, { TzDataMismatch: difference || error ? 1 : 0 }, { ...facts, ...(difference ? { first_difference: difference.at } : {}) });
  return difference;
}

let reportedAt = Number.NEGATIVE_INFINITY;

/** After an answer: once Morocco's time was computed, and then hourly, the report, queued behind the answer. */
export function afterAnswer(now = Date.now()): void {
  if (!zoneInUse() || now - reportedAt < REPORT_EVERY_MS) return;
  reportedAt = now;
  setImmediate(() => reportRuntimeRules());
}

/**
 * The outermost middleware of every handler (route() and instrumented()):
 * its `after` and `onError` run last, once the answer is final, and the
 * report they queue runs after Lambda's runtime has sent that answer (it posts
 * it before the event loop turns).
 */
export function runtimeRulesCheck<E, R, C>(): MiddlewareObj<E, R, Error, C> {
  return { after: () => afterAnswer(), onError: () => afterAnswer() };
}
