import { open, stat } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { REQUEST_LOG_CONSUMER, REQUEST_LOG_FILTER_PATTERN } from '../../shared/request-logs/entry';
import { ROUTE_LIST } from '../../shared/routes';
import type { AsyncInvoker } from './async-invoke';
import type { IamModel } from './iam/model';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './iam/model';
import type { IamRequest } from './iam/requests';

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
  let running: Promise<void> = Promise.resolve();

  const read = async (): Promise<string> => {
    const size = await stat(opts.file).then(
      (s) => s.size,
      () => 0,
    );
    if (size < offset) offset = 0; // a new file
    if (size === offset) return '';
    const fh = await open(opts.file, 'r');
    try {
      const buf = Buffer.alloc(size - offset);
      const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
      // Whole lines only: a line being written is read at the next poll, its characters uncut.
      const end = buf.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
      offset += end;
      return buf.subarray(0, end).toString('utf8');
    } finally {
      await fh.close();
    }
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
    // Handed to Lambda, not waited for: the invoker retries a failure and prints it.
    void opts.invoker.invoke(s.destination.entry, event, { name: s.destination.entry, timeoutMs: 30_000 });
  };

  const poll = async () => {
    const lines = (await read()).split('\n');
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
    const deliveries: Promise<void>[] = [];
    for (const [s, events] of batches) for (let i = 0; i < events.length; i += MAX_EVENTS) deliveries.push(deliver(s, events.slice(i, i + MAX_EVENTS)));
    await Promise.all(deliveries);
  };

  const flush = () => {
    running = running.then(poll).catch((e: Error) => opts.log(`[logs] subscription delivery failed: ${e.message}`));
    return running;
  };
  const timer = setInterval(() => void flush(), opts.intervalMs ?? 1000);
  timer.unref();
  return {
    flush,
    stop: async () => {
      clearInterval(timer);
      await flush();
    },
  };
}
