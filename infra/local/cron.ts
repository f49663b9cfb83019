import { randomUUID } from 'node:crypto';
import type { JobDef } from '../../shared/queues';
import { lambdaContext, loadHandler } from './lambda';

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

/** EventBridge's scheduled event, as the rule delivers it to the job's Lambda. */
export function scheduledEvent(job: JobDef, time: Date) {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'us-east-1',
    resources: [`arn:aws:events:us-east-1:123456789012:rule/${job.id}`],
    detail: {},
  };
}

/**
 * Runs one job as its rule would. Quiet by default: a job that runs and
 * succeeds prints nothing (the sweeper runs every 5 minutes); its start and
 * end are printed only when `verbose` (LOG_LEVEL INFO or DEBUG). A failure is
 * always printed.
 */
export async function runJob(job: JobDef, at: Date, log: (line: string) => void, verbose = false): Promise<void> {
  if (verbose) log(`[cron] ${job.id} starts (${job.schedule})`);
  try {
    const h = await loadHandler(job.handler);
    await h(scheduledEvent(job, at), lambdaContext(job.id, 900_000));
    if (verbose) log(`[cron] ${job.id} done`);
  } catch (e) {
    log(`[cron] ${job.id} failed: ${(e as Error).message}`);
  }
}

/** Whether a log level shows the job runner's start and end lines. */
export const verboseLevel = (level: string | undefined) => ['DEBUG', 'INFO', 'TRACE'].includes((level ?? '').toUpperCase());

/** Ticks at every UTC minute and runs the jobs whose cron matches. */
export function startCron(jobs: JobDef[], log: (line: string) => void, verbose = false) {
  const matchers = jobs.map((j) => ({ job: j, cron: parseCron(j.schedule) }));
  let timer: NodeJS.Timeout | undefined;
  const running = new Set<Promise<unknown>>();
  const schedule = () => {
    const now = Date.now();
    timer = setTimeout(tick, 60_000 - (now % 60_000) + 50);
  };
  const tick = () => {
    const t = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    for (const { job, cron } of matchers) {
      if (!cron.matches(t)) continue;
      const p = runJob(job, t, log, verbose).finally(() => running.delete(p));
      running.add(p);
    }
    schedule();
  };
  schedule();
  return {
    stop: async () => {
      if (timer) clearTimeout(timer);
      await Promise.allSettled([...running]);
    },
  };
}
