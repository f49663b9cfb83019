import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync, type WriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { inInvocation } from './lambda';

/**
 * The local stand-in for CloudWatch Logs. In Lambda, whatever a function
 * writes to stdout and stderr lands in its log group, and CloudWatch turns
 * the EMF documents among those lines into metrics. Locally every handler runs
 * in one process, so the runtime keeps what is written *inside an invocation*
 * in one JSON-lines file under the state directory, EMF documents included;
 * `metrics:summary` and the tests read it back. Lines written outside an
 * invocation (the runtime's own messages) are left alone.
 */
export const functionLogFile = (stateDir: string, port: number) => join(stateDir, 'logs', `lambda-${port}.jsonl`);

const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'];

export interface CaptureOptions {
  /** Where log lines at or above `echoLevel` are also shown (the terminal); EMF documents never are. */
  echo: 'stdout' | 'stderr';
  echoLevel?: string;
  /** Start a new file, keeping the previous runs' files as .1, .2, ... (a new local run): see `rotateLog`. */
  rotate?: boolean;
  /**
   * Keep only JSON lines (logs and EMF) in the file; other text goes to the terminal as before.
   * The admin CLI's progress lines are for the operator, not part of a function's log.
   */
  jsonOnly?: boolean;
}

/** How many previous runs' log files are kept, and how many bytes they may take together. */
export const LOG_RETENTION = { files: 5, bytes: 64 * 1024 * 1024 };

/** The file of the run `n` runs back: lambda-3000.1.jsonl is the previous run's. */
export const rotatedLogFile = (file: string, n: number) => file.replace(/\.jsonl$/, `.${n}.jsonl`);

/**
 * Starts a new log file for a new run: the current one becomes .1, .1 becomes
 * .2, and so on. At most `keep.files` previous files are kept, and the oldest
 * go first once they take more than `keep.bytes` together; the previous run's
 * (the one a crash interrupted) is always kept.
 */
export function rotateLog(file: string, keep = LOG_RETENTION): void {
  const legacy = file.replace(/\.jsonl$/, '.prev.jsonl'); // one previous file, as kept before
  const previous = [file, ...(existsSync(legacy) ? [legacy] : [])];
  for (let n = 1; existsSync(rotatedLogFile(file, n)); n++) previous.push(rotatedLogFile(file, n));
  if (!existsSync(file)) previous.shift();
  let bytes = 0;
  const kept = previous.filter((f, i) => {
    bytes += statSync(f).size;
    return i === 0 || (i < keep.files && bytes <= keep.bytes);
  });
  for (const f of previous.slice(kept.length)) rmSync(f, { force: true });
  // Oldest first, so no file is renamed over one not moved yet.
  for (let i = kept.length - 1; i >= 0; i--) renameSync(kept[i]!, rotatedLogFile(file, i + 1));
}

/** Routes the output of invocations to `file`; returns a function that restores stdout and stderr. */
export function captureFunctionLogs(file: string, opts: CaptureOptions): () => Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  if (opts.rotate) rotateLog(file);
  const out: WriteStream = createWriteStream(file, { flags: 'a' });
  const threshold = Math.max(0, LEVELS.indexOf((opts.echoLevel ?? 'WARN').toUpperCase()));
  const shown = (line: string) => {
    if (line.includes('"_aws":{')) return false;
    const level = /"level":"([A-Z]+)"/.exec(line)?.[1];
    return level === undefined || LEVELS.indexOf(level) >= threshold;
  };
  const originals = { stdout: process.stdout.write, stderr: process.stderr.write };
  const patch = (stream: NodeJS.WriteStream, original: typeof process.stdout.write) => {
    stream.write = ((chunk: string | Uint8Array, encoding?: BufferEncoding | ((e?: Error | null) => void), cb?: (e?: Error | null) => void) => {
      if (!inInvocation()) return original.call(stream, chunk, encoding as BufferEncoding, cb);
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (opts.jsonOnly && !text.startsWith('{')) return original.call(stream, chunk, encoding as BufferEncoding, cb);
      out.write(text);
      const echoed = text
        .split('\n')
        .filter((l) => l !== '' && shown(l))
        .join('\n');
      if (echoed) originals[opts.echo].call(process[opts.echo], `${echoed}\n`);
      const done = typeof encoding === 'function' ? encoding : cb;
      done?.();
      return true;
    }) as typeof process.stdout.write;
  };
  patch(process.stdout, originals.stdout);
  patch(process.stderr, originals.stderr);
  return () =>
    new Promise<void>((resolve) => {
      process.stdout.write = originals.stdout;
      process.stderr.write = originals.stderr;
      out.end(() => resolve());
    });
}

/** The JSON lines of a function log file (non-JSON lines are skipped), in order. */
export async function* readFunctionLog(file: string): AsyncGenerator<Record<string, unknown>> {
  if (!existsSync(file)) return;
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (!line.startsWith('{')) continue;
    try {
      yield JSON.parse(line) as Record<string, unknown>;
    } catch {
      // A line cut by a crash: skip it.
    }
  }
}

export interface MetricFigure {
  namespace: string;
  name: string;
  unit: string;
  dimensions: Record<string, string>;
  samples: number;
  sum: number;
  min: number;
  max: number;
  avg: number;
  p50: number;
  p99: number;
}

export interface MetricsSummary {
  source: string;
  documents: number;
  from: string | null;
  to: string | null;
  metrics: MetricFigure[];
}

interface EmfDirective {
  Namespace: string;
  Dimensions: string[][];
  Metrics: { Name: string; Unit?: string }[];
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

/**
 * Reads the EMF documents of a function log file back into figures, as
 * CloudWatch would aggregate them: one series per namespace, metric and
 * dimension set (a document with two dimension sets counts in both).
 */
export async function summarizeMetrics(file: string, filter: { since?: Date; name?: string } = {}): Promise<MetricsSummary> {
  const series = new Map<string, { key: Omit<MetricFigure, 'samples' | 'sum' | 'min' | 'max' | 'avg' | 'p50' | 'p99'>; values: number[] }>();
  let documents = 0;
  let from: number | undefined;
  let to: number | undefined;
  for await (const doc of readFunctionLog(file)) {
    const aws = doc._aws as { Timestamp: number; CloudWatchMetrics: EmfDirective[] } | undefined;
    if (!aws?.CloudWatchMetrics) continue;
    if (filter.since && aws.Timestamp < filter.since.getTime()) continue;
    documents++;
    from = Math.min(from ?? aws.Timestamp, aws.Timestamp);
    to = Math.max(to ?? aws.Timestamp, aws.Timestamp);
    for (const directive of aws.CloudWatchMetrics) {
      for (const m of directive.Metrics) {
        if (filter.name && m.Name !== filter.name) continue;
        const raw = doc[m.Name];
        const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is number => typeof v === 'number');
        for (const set of directive.Dimensions) {
          const dimensions = Object.fromEntries(set.map((d) => [d, String(doc[d])]));
          const id = JSON.stringify([directive.Namespace, m.Name, dimensions]);
          let s = series.get(id);
          if (!s) {
            s = { key: { namespace: directive.Namespace, name: m.Name, unit: m.Unit ?? 'None', dimensions }, values: [] };
            series.set(id, s);
          }
          s.values.push(...values);
        }
      }
    }
  }
  const metrics = [...series.values()]
    .map(({ key, values }) => {
      const sorted = [...values].sort((a, b) => a - b);
      const sum = sorted.reduce((a, b) => a + b, 0);
      return {
        ...key,
        samples: sorted.length,
        sum,
        min: sorted[0] ?? 0,
        max: sorted.at(-1) ?? 0,
        avg: sorted.length ? sum / sorted.length : 0,
        p50: sorted.length ? percentile(sorted, 50) : 0,
        p99: sorted.length ? percentile(sorted, 99) : 0,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name) || JSON.stringify(a.dimensions).localeCompare(JSON.stringify(b.dimensions)));
  return {
    source: file,
    documents,
    from: from === undefined ? null : new Date(from).toISOString(),
    to: to === undefined ? null : new Date(to).toISOString(),
    metrics,
  };
}
