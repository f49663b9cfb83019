import { performance } from 'node:perf_hooks';

export interface Stats {
  name: string;
  n: number;
  p50: number;
  p99: number;
  mean: number;
  ddbPerRequest?: number;
  /** Sequential DynamoDB stages per request: calls that overlap in time count as one stage. */
  stagesPerRequest?: number;
  /** p50 / the bare GetItem's p50 of the same run. */
  ratio?: number;
}

/**
 * JSON whitespace that differs for every n (n written in base 4 with space, tab,
 * LF and CR as digits): appended to a body, it makes every signed request's bytes
 * distinct for good, so no two requests of one second carry the same signature
 * (a live signature is accepted once).
 */
export function distinctWhitespace(n: number): string {
  const digits = [' ', '\t', '\n', '\r'];
  return [...n.toString(4)].map((d) => digits[Number(d)]).join('');
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

function statsOf(name: string, times: number[]): Stats {
  const sorted = [...times].sort((a, b) => a - b);
  return { name, n: times.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean: times.reduce((a, b) => a + b, 0) / times.length };
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Runs `fn` n times sequentially after a warm-up and returns latency percentiles in ms. */
export async function measure(name: string, n: number, fn: (i: number) => Promise<void>, warmup = 20): Promise<Stats> {
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await timed(() => fn(i)));
  return statsOf(name, times);
}

/**
 * `measure` for scenarios to be compared with each other: after their
 * warm-ups, the i-th request of each runs in turn, so that a noisy moment of
 * a shared machine falls on all of them alike instead of on one block.
 */
export async function measureInterleaved(scenarios: readonly { name: string; fn: (i: number) => Promise<void> }[], n: number, warmup = 20): Promise<Stats[]> {
  for (const { fn } of scenarios) for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const times = scenarios.map(() => [] as number[]);
  for (let i = 0; i < n; i++) for (const [k, { fn }] of scenarios.entries()) times[k]!.push(await timed(() => fn(i)));
  return scenarios.map(({ name }, k) => statsOf(name, times[k]!));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Per scenario, the median over runs of each figure (the ratio: of each run's ratio to its own bare GetItem). */
export function medianOfRuns(runs: Stats[][], baselineName: string): Stats[] {
  const withRatio = runs.map((rows) => {
    const base = rows.find((r) => r.name === baselineName)!;
    return rows.map((r) => ({ ...r, ratio: r.p50 / base.p50 }));
  });
  return withRatio[0]!.map((first, i) => {
    const all = withRatio.map((rows) => rows[i]!);
    const opt = (f: (s: Stats) => number | undefined) => (f(first) === undefined ? undefined : median(all.map((s) => f(s)!)));
    return {
      ...first,
      p50: median(all.map((s) => s.p50)),
      p99: median(all.map((s) => s.p99)),
      mean: median(all.map((s) => s.mean)),
      ratio: median(all.map((s) => s.ratio!)),
      ddbPerRequest: opt((s) => s.ddbPerRequest),
      stagesPerRequest: opt((s) => s.stagesPerRequest),
    };
  });
}

/**
 * One scenario's p50 over the mean p50 of others measured in the same run,
 * per run: a comparison that the run-to-run noise of the bare baseline cannot
 * skew (the scenarios are measured interleaved).
 */
export function againstOthers(runs: Stats[][], name: string, others: readonly string[]): { perRun: number[]; median: number } {
  const perRun = runs.map((rows) => {
    const p50 = (n: string) => {
      const row = rows.find((r) => r.name === n);
      if (!row) throw new Error(`no scenario named ${n}`);
      return row.p50;
    };
    return p50(name) / (others.reduce((sum, o) => sum + p50(o), 0) / others.length);
  });
  return { perRun, median: median(perRun) };
}

export function table(rows: Stats[], baseline: Stats, runs = 1): string {
  const head = ['scenario', 'n', 'p50 ms', 'p99 ms', `p50 / bare GetItem${runs > 1 ? ` (median of ${runs})` : ''}`, 'DynamoDB calls/req', 'stages/req'];
  const lines = rows.map((r) => [
    r.name,
    String(r.n),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    `${(r.ratio ?? r.p50 / baseline.p50).toFixed(2)}x`,
    r.ddbPerRequest === undefined ? '-' : r.ddbPerRequest.toFixed(2),
    r.stagesPerRequest === undefined ? '-' : r.stagesPerRequest.toFixed(2),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n');
}
