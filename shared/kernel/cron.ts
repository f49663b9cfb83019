/**
 * EventBridge cron expressions, UTC: cron(minutes hours day-of-month month day-of-week year).
 * The local cron runner fires jobs with it, and the job watchdog computes
 * from it when each job should last have run.
 */
const DAYS: Record<string, number> = { SUN: 1, MON: 2, TUE: 3, WED: 4, THU: 5, FRI: 6, SAT: 7 };
const MONTHS: Record<string, number> = { JAN: 1, FEB: 2, MAR: 3, APR: 4, MAY: 5, JUN: 6, JUL: 7, AUG: 8, SEP: 9, OCT: 10, NOV: 11, DEC: 12 };

function field(spec: string, min: number, max: number, names: Record<string, number> = {}): Set<number> | null {
  if (spec === '*' || spec === '?') return null;
  const out = new Set<number>();
  const val = (s: string) => {
    const n = names[s.toUpperCase()] ?? Number(s);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`bad cron value '${s}'`);
    return n;
  };
  for (const part of spec.split(',')) {
    const [range, stepStr] = part.split('/');
    const step = stepStr ? Number(stepStr) : 1;
    let lo: number;
    let hi: number;
    if (range === '*') [lo, hi] = [min, max];
    else if (range!.includes('-')) [lo, hi] = range!.split('-').map(val) as [number, number];
    else [lo, hi] = [val(range!), stepStr ? max : val(range!)];
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

export interface CronMatcher {
  matches(d: Date): boolean;
}

/** Parses an EventBridge cron expression: cron(minutes hours day-of-month month day-of-week year), UTC. */
export function parseCron(expr: string): CronMatcher {
  const m = /^cron\((.+)\)$/.exec(expr.trim());
  if (!m) throw new Error(`not a cron() expression: ${expr}`);
  const parts = m[1]!.trim().split(/\s+/);
  if (parts.length !== 6) throw new Error(`cron needs 6 fields: ${expr}`);
  const [mi, h, dom, mon, dow, yr] = parts as [string, string, string, string, string, string];
  const minutes = field(mi, 0, 59);
  const hours = field(h, 0, 23);
  const days = field(dom, 1, 31);
  const months = field(mon, 1, 12, MONTHS);
  const weekdays = field(dow, 1, 7, DAYS);
  const years = field(yr, 1970, 2199);
  return {
    matches(d: Date) {
      return (
        (!minutes || minutes.has(d.getUTCMinutes())) &&
        (!hours || hours.has(d.getUTCHours())) &&
        (!days || days.has(d.getUTCDate())) &&
        (!months || months.has(d.getUTCMonth() + 1)) &&
        (!weekdays || weekdays.has(d.getUTCDay() + 1)) &&
        (!years || years.has(d.getUTCFullYear()))
      );
    },
  };
}

/**
 * The last minute at or before `at` that the expression fires, looking back at
 * most `limitDays` days (enough for monthly and yearly schedules); undefined if none.
 */
export function previousFire(cron: CronMatcher, at: Date, limitDays = 400): Date | undefined {
  let t = Math.floor(at.getTime() / 60_000) * 60_000;
  const end = t - limitDays * 86_400_000;
  for (; t >= end; t -= 60_000) {
    const d = new Date(t);
    if (cron.matches(d)) return d;
  }
  return undefined;
}
