import { readFileSync } from 'node:fs';
import { open, rename, stat, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { REQUEST_LOG_CONSUMER, REQUEST_LOG_FILTER_PATTERN } from '../../shared/request-logs/entry';
import { ROUTE_LIST } from '../../shared/routes';
import type { AsyncInvoker } from './async-invoke';
import type { IamModel } from './iam/model';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './iam/model';
import type { IamRequest } from './iam/requests';
import { LOG_RETENTION, rotatedLogFile } from './logs';

/**
 * CloudWatch Logs subscription filters, for the local runtime. In AWS each function writes to its own log
 * group, and a log group's subscription filter hands the events its pattern matches to a Lambda function
 * (`awslogs.data`: base64 of gzip of {messageType, owner, logGroup, logStream, subscriptionFilters,
 * logEvents}), asynchronously, a few seconds after they are written. Locally every function writes to one
 * file (infra/local/logs.ts): this follows that file, tells each line's function by its `route` field (a route
 * function's log lines carry their route), matches the lines against the subscription filters of that
 * function's log group in the synthesized templates, and about once a second invokes each destination with
 * the same event shape, once CloudWatch Logs (`logs.amazonaws.com`) may invoke it: lambda:InvokeFunction
 * under the function's resource policy, for that log group (aws:SourceArn). A refusal is recorded as a
 * deny. The invocation is asynchronous, as CloudWatch Logs' is (infra/local/async-invoke.ts): a destination that
 * fails is tried twice more, then its event goes to the function's on-failure queue; it never reaches a request.
 *
 * What a function wrote before the stack died is delivered after the restart, as CloudWatch Logs delivers what a
 * function wrote before it was killed: the position up to which every delivery has ended is kept beside the file
 * (its checkpoint: the file's inode and byte offset), and the next run delivers the rest of that file, rotated
 * to lambda-<port>.1.jsonl meanwhile, before it follows its own. A line may then be delivered twice (a crash
 * between an invocation and the checkpoint), which the consumer's writes, keyed by request id, absorb.
 */
export interface Subscription {
  /** The handler entry whose log group it filters. */
  source: string;
  logGroup: string;
  filterName: string;
  filterPattern: string;
  destination: { entry: string; arn: string };
}

/** What a JSON filter pattern `{ $.field = value }` (or `!=`) matches; the only form the templates use. */
export function jsonPatternMatcher(pattern: string): (event: Record<string, unknown>) => boolean {
  const m = /^\{\s*\$\.([\w.]+)\s*(=|!=)\s*("(?:[^"\\]|\\.)*"|[^\s}]+)\s*\}$/.exec(pattern.trim());
  if (!m) throw new Error(`the local runtime does not read the filter pattern ${JSON.stringify(pattern)}: only { $.field = value } is supported`);
  const [, path, op, raw] = m as unknown as [string, string, string, string];
  const expected = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
  return (event) => {
    const value = path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), event);
    const equal = value !== undefined && value !== null && String(value) === String(expected);
    return op === '=' ? equal : !equal;
  };
}

/** The subscriptions of the synthesized templates, by source function; without them (LOCAL_IAM=off), the request log's, from the route table. */
export function subscriptionsOf(model: IamModel | undefined): Subscription[] {
  if (!model) {
    const destination = { entry: REQUEST_LOG_CONSUMER, arn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:request-log` };
    return ROUTE_LIST.filter((r) => r.access === 'key').map((r) => ({
      source: r.handler,
      logGroup: r.handler,
      filterName: 'request-log',
      filterPattern: REQUEST_LOG_FILTER_PATTERN,
      destination,
    }));
  }
  const entryOfArn = new Map(Object.entries(model.functions).map(([entry, f]) => [f.arn, entry]));
  return Object.entries(model.functions).flatMap(([source, f]) =>
    model.subscriptions
      .filter((s) => f.logGroup !== undefined && s.logGroup === f.logGroup)
      .flatMap((s) => {
        const entry = entryOfArn.get(s.destinationArn);
        return entry
          ? [{ source, logGroup: s.logGroup, filterName: s.filterName, filterPattern: s.filterPattern, destination: { entry, arn: s.destinationArn } }]
          : [];
      }),
  );
}

export interface LogSubscriptionOptions {
  file: string;
  subscriptions: Subscription[];
  /** Lambda's asynchronous invocation, which CloudWatch Logs hands each delivery to. */
  invoker: AsyncInvoker;
  /** The IAM layer's check of what a service does (absent: IAM is off). */
  allows?: (principal: string, r: IamRequest) => Promise<boolean>;
  log: (line: string) => void;
  intervalMs?: number;
  /** Where the delivered position is kept across runs (default: beside the file, <file>.delivered.json). */
  checkpointFile?: string;
}

/** How far the deliveries of a file have ended: its inode (a rotation renames it, and keeps it) and a byte offset. */
interface Checkpoint {
  ino: number;
  offset: number;
}

export const checkpointFileOf = (file: string) => file.replace(/\.jsonl$/, '.delivered.json');

function readCheckpoint(file: string): Checkpoint | undefined {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as Checkpoint;
    return Number.isInteger(c.ino) && Number.isInteger(c.offset) ? c : undefined;
  } catch {
    return undefined; // none yet (a first run, a state directory from before), or cut by a crash
  }
}

/**
 * What a previous run left undelivered: the rest of the rotated file the checkpoint names, then the whole of
 * each newer rotated file (a run that died before it delivered anything), oldest first.
 */
async function leftOver(file: string, checkpoint: Checkpoint | undefined): Promise<{ file: string; from: number }[]> {
  if (!checkpoint) return [];
  const rotated: { file: string; ino: number; size: number }[] = [];
  for (let n = 1; n <= LOG_RETENTION.files; n++) {
    const f = rotatedLogFile(file, n);
    const st = await stat(f).catch(() => undefined);
    if (st) rotated.push({ file: f, ino: st.ino, size: st.size });
  }
  const at = rotated.findIndex((r) => r.ino === checkpoint.ino && r.size >= checkpoint.offset);
  if (at < 0) return [];
  return rotated
    .slice(0, at + 1)
    .reverse()
    .map((r, i) => ({ file: r.file, from: i === 0 ? checkpoint.offset : 0 }));
}

/** At most this many log events per invocation (CloudWatch Logs batches up to about 1 MB). */
const MAX_EVENTS = 500;

/** Follows the function log file and delivers what the subscription filters match; `flush` delivers what is written so far. */
export function startLogSubscriptions(opts: LogSubscriptionOptions) {
  const handlerOfRoute = new Map(ROUTE_LIST.map((r) => [`${r.method} ${r.path}`, r.handler]));
  const bySource = new Map<string, (Subscription & { matches: (e: Record<string, unknown>) => boolean })[]>();
  for (const s of opts.subscriptions) {
    const list = bySource.get(s.source) ?? [];
    list.push({ ...s, matches: jsonPatternMatcher(s.filterPattern) });
    bySource.set(s.source, list);
  }
  let offset = 0;
  let sequence = 0;
  const checkpointFile = opts.checkpointFile ?? checkpointFileOf(opts.file);
  // The previous run's rest, handed over first (this run's first checkpoint waits until it is delivered).
  /** The deliveries handed over so far, in order: the checkpoint moves past a range once its deliveries ended. */
  let ended: Promise<unknown> = Promise.resolve();
  /** A delivery was dropped (a stop): the checkpoint moves no more in this run. */
  let held = false;
  let running: Promise<void> = leftOver(opts.file, readCheckpoint(checkpointFile))
    .then(async (files) => {
      for (const f of files) {
        const { text } = await readLines(f.file, f.from);
        const handed = deliverLines(text).then((n) => {
          if (n) opts.log(`[logs] ${n} log event(s) the last run wrote and had not delivered, delivered now (${f.file})`);
        });
        ended = Promise.all([ended, handed]);
      }
    })
    .catch((e: Error) => opts.log(`[logs] what the last run left undelivered could not be read: ${e.message}`));

  const read = async (): Promise<{ text: string; ino?: number; end: number }> => {
    const st = await stat(opts.file).catch(() => undefined);
    if (!st) return { text: '', end: offset };
    if (st.size < offset) offset = 0; // a new file
    const r = await readLines(opts.file, offset, st.size);
    offset = r.end;
    return { ...r, ino: st.ino };
  };

  let saved: Checkpoint | undefined;
  const saveCheckpoint = async (c: Checkpoint) => {
    if (saved?.ino === c.ino && saved.offset === c.offset) return; // nothing new: no write every second
    saved = c;
    const tmp = `${checkpointFile}.tmp`;
    await writeFile(tmp, JSON.stringify(c));
    await rename(tmp, checkpointFile);
  };

  const deliver = async (s: Subscription, events: { id: string; timestamp: number; message: string }[]) => {
    const sourceArn = `arn:aws:logs:${LOCAL_REGION}:${LOCAL_ACCOUNT}:log-group:${s.logGroup}:*`;
    const allowed = opts.allows
      ? await opts.allows('service:logs.amazonaws.com', {
          action: 'lambda:InvokeFunction',
          resource: s.destination.arn,
          context: { 'aws:SourceArn': sourceArn, 'aws:SourceAccount': LOCAL_ACCOUNT },
        })
      : true;
    if (!allowed) {
      opts.log(`[logs] ${events.length} event(s) of ${s.logGroup} not delivered: CloudWatch Logs may not invoke ${s.destination.entry}`);
      return;
    }
    const data = {
      messageType: 'DATA_MESSAGE',
      owner: LOCAL_ACCOUNT,
      logGroup: s.logGroup,
      logStream: 'local',
      subscriptionFilters: [s.filterName],
      logEvents: events,
    };
    const event = { awslogs: { data: gzipSync(JSON.stringify(data)).toString('base64') } };
    // Handed to Lambda, not waited for (the invoker retries a failure and prints it); its end moves the checkpoint.
    const outcome = await opts.invoker.invoke(s.destination.entry, event, { name: s.destination.entry, timeoutMs: 30_000 });
    // Dropped by a stop while it waited for a retry: the checkpoint stays before it, and the next run delivers it.
    if (outcome.status === 'dropped') held = true;
  };

  /** Delivers what the subscription filters match among `text`'s lines; the count handed over, once every invocation ended. */
  const deliverLines = async (text: string): Promise<number> => {
    const lines = text.split('\n');
    const batches = new Map<Subscription, { id: string; timestamp: number; message: string }[]>();
    for (const message of lines) {
      if (!message.startsWith('{') || !message.includes('"route"')) continue;
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(message) as Record<string, unknown>;
      } catch {
        continue;
      }
      const source = typeof event.route === 'string' ? handlerOfRoute.get(event.route) : undefined;
      for (const s of (source && bySource.get(source)) || []) {
        if (!s.matches(event)) continue;
        const batch = batches.get(s) ?? [];
        const at = typeof event.timestamp === 'string' ? Date.parse(event.timestamp) : Date.now();
        batch.push({ id: String(++sequence).padStart(56, '0'), timestamp: Number.isNaN(at) ? Date.now() : at, message });
        batches.set(s, batch);
      }
    }
    const deliveries: Promise<unknown>[] = [];
    let count = 0;
    for (const [s, events] of batches) {
      count += events.length;
      for (let i = 0; i < events.length; i += MAX_EVENTS) deliveries.push(deliver(s, events.slice(i, i + MAX_EVENTS)));
    }
    await Promise.all(deliveries);
    return count;
  };

  const poll = async () => {
    const { text, ino, end } = await read();
    // The deliveries run on; the checkpoint moves to `end` once they and every earlier one ended.
    const handed = deliverLines(text);
    ended = Promise.all([ended, handed])
      .then(() => (ino === undefined || held ? undefined : saveCheckpoint({ ino, offset: end })))
      .catch((e: Error) => opts.log(`[logs] the delivery checkpoint could not be saved: ${e.message}`));
  };

  const flush = () => {
    running = running.then(poll).catch((e: Error) => opts.log(`[logs] subscription delivery failed: ${e.message}`));
    return running;
  };
  const timer = setInterval(() => void flush(), opts.intervalMs ?? 1000);
  timer.unref();
  return {
    flush,
    /** Stops following the file, once what it holds is handed over. */
    stop: async () => {
      clearInterval(timer);
      await flush();
    },
    /** Resolves once every delivery handed over has ended (with the invoker's stop: run, or dropped) and the checkpoint says so. */
    settled: async () => {
      await running;
      await ended.catch(() => undefined);
    },
  };
}

/** The whole lines of `file` from byte `from` (to `to`, or its end): a line being written is read at the next poll, uncut. */
async function readLines(file: string, from: number, to?: number): Promise<{ text: string; end: number }> {
  const size = to ?? (await stat(file)).size;
  if (size <= from) return { text: '', end: from };
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(size - from);
    const { bytesRead } = await fh.read(buf, 0, buf.length, from);
    const end = buf.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
    return { text: buf.subarray(0, end).toString('utf8'), end: from + end };
  } finally {
    await fh.close();
  }
}
