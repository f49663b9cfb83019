import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { CompactSign } from 'jose';

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

/** A booking's body as a bank sends it: the quote's, with a payment confirmation signed with the partner's payment key (ES256). */
export async function signedBookingBody(q: { id: string; net_amount: unknown }, kid: string, signingKey: Parameters<CompactSign['sign']>[0]): Promise<string> {
  const claims = { quote_id: q.id, amount: q.net_amount, payment_reference: randomUUID(), paid_at: new Date().toISOString() };
  const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader({ alg: 'ES256', kid }).sign(signingKey);
  return JSON.stringify({
    quote_id: q.id,
    partner_reference: randomUUID(),
    customer_reference: 'BENCH',
    contact: { first_name: 'B', last_name: 'Bench', email: 'bench@example.com', phone: '+212600000000' },
    travelers: [{ first_name: 'B', last_name: 'Bench' }],
    payment_confirmation: jws,
  });
}

/** A bench module run on its own: boots the local stack in this process, on a free port and a fresh state directory; resolves to its base URL. */
export async function standaloneStack(): Promise<string> {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { freePort } = await import('../infra/local/services');
  const { startLocalStack } = await import('../infra/local/stack');
  const stack = await startLocalStack({ port: await freePort(), stateDir: mkdtempSync(join(tmpdir(), 'ptbs-bench-')), reset: true, log: () => undefined });
  return stack.baseUrl;
}

/** One memory sample of a soak: seconds since the start of the load, RSS and heap used in MB. */
export interface MemorySample {
  t: number;
  rss: number;
  heap: number;
}

/**
 * Whether memory grows with requests: the samples after the warm-up are split
 * in two halves by count, and the mean of the second is compared with the mean
 * of the first, per minute between their mean times. The verdict is on the heap
 * (live memory when sampled after a GC): RSS also holds what the allocator
 * keeps, and is reported beside it.
 */
export function memoryGrowth(samples: MemorySample[], warmupSec: number, limitMbPerMinute = 1) {
  const after = samples.filter((s) => s.t >= warmupSec);
  const half = Math.floor(after.length / 2);
  const mean = (xs: MemorySample[]) => ({
    t: xs.reduce((a, s) => a + s.t, 0) / xs.length,
    rss: xs.reduce((a, s) => a + s.rss, 0) / xs.length,
    heap: xs.reduce((a, s) => a + s.heap, 0) / xs.length,
  });
  if (half < 2) return { verdict: 'too short' as const, limitMbPerMinute };
  const first = mean(after.slice(0, half));
  const second = mean(after.slice(after.length - half));
  const minutes = (second.t - first.t) / 60;
  const perMinute = { rss: (second.rss - first.rss) / minutes, heap: (second.heap - first.heap) / minutes };
  return { verdict: perMinute.heap > limitMbPerMinute ? ('grows' as const) : ('flat' as const), first, second, perMinute, limitMbPerMinute };
}
