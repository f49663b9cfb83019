import { performance } from 'node:perf_hooks';

export interface Stats {
  name: string;
  n: number;
  p50: number;
  p99: number;
  mean: number;
  ddbPerRequest?: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** Runs `fn` n times sequentially after a warm-up and returns latency percentiles in ms. */
export async function measure(name: string, n: number, fn: (i: number) => Promise<void>, warmup = 20): Promise<Stats> {
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { name, n, p50: percentile(times, 50), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / n };
}

export function table(rows: Stats[], baseline: Stats): string {
  const head = ['scenario', 'n', 'p50 ms', 'p99 ms', 'p50 / bare GetItem', 'DynamoDB calls/req'];
  const lines = rows.map((r) => [
    r.name,
    String(r.n),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    `${(r.p50 / baseline.p50).toFixed(1)}x`,
    r.ddbPerRequest === undefined ? '-' : r.ddbPerRequest.toFixed(2),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n');
}
