import '../scripts/quiet-sdk';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { diff, startMeter, type Usage } from './meter';

/**
 * What one unit of work costs in AWS, counted against the local stack booted
 * in this process (`npm run bench -- --only cost`):
 *
 * - one booking: a live quote and a live booking (signed writes, a signed
 *   payment confirmation), with what its booking.confirmed event costs when the
 *   partner has no webhook endpoint; BENCH_COST_BOOKINGS (10) of them, averaged;
 * - one webhook delivery: the same bookings for a partner with one endpoint
 *   (booking.confirmed, a local receiver), minus the bookings above;
 * - one monthly settlement of BENCH_COST_SETTLEMENT (10 000) bookings: the
 *   settlement worker's job for one tenant (bench/settlements.ts stages the
 *   ledger, which in production the bookings' transactions write).
 *
 * Counted by bench/meter.ts: SDK calls per service and operation, DynamoDB
 * read and write units as DynamoDB Local reports them (ReturnConsumedCapacity),
 * SQS messages, Lambda invocations and their duration, function log bytes.
 * Prices are eu-west-1's (PRICES below; their sources in docs/performance.md).
 */

/** eu-west-1 unit prices in USD (sources and dates in docs/performance.md, "What a booking costs in AWS"). */
export const PRICES = {
  lambdaRequest: 0.2 / 1e6,
  /** Arm (Graviton), first 7.5 billion GB-seconds a month. */
  lambdaGbSecond: 0.0000133334,
  apiRequest: 1.11 / 1e6,
  dynamoRead: 0.1415 / 1e6,
  dynamoWrite: 0.7068 / 1e6,
  sqsRequest: 0.4 / 1e6,
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  schedulerInvocation: 1.0 / 1e6,
  logsIngestedGb: 0.57,
  xrayTrace: 5.0 / 1e6,
  sesMessage: 0.1 / 1000,
};

/** What Lambda writes per invocation besides the function's own lines (START, END and REPORT, text format): an assumption, not measured locally. */
export const PLATFORM_LOG_BYTES = 300;

/** An API Gateway access log line in the stage's format (infra/constructs/api.ts) with typical values. */
export const ACCESS_LOG_BYTES = JSON.stringify({
  requestId: 'Xy1AbCdEfGhIjKl=',
  ip: '203.0.113.10',
  requestTime: '24/Nov/2026:13:14:03 +0000',
  httpMethod: 'POST',
  routeKey: 'POST /v1/bookings',
  status: '201',
  responseLength: '1834',
  integrationLatency: '85',
}).length;

export interface UnitCost {
  name: string;
  apiRequests: number;
  usage: Usage;
  /** Function entry -> memory in MB (the CDK stack's sizes). */
  memory: (entry: string) => number;
}

const S3_GET_CLASS = new Set(['GetObject', 'HeadObject']);

/** One unit's figures: counts, then USD at PRICES. The SQS consumers' receive and delete are one request each per consumer invocation. */
export function costOf(u: UnitCost, per = 1) {
  const calls = (service: string, f: (op: string) => boolean = () => true) =>
    Object.entries(u.usage.calls)
      .filter(([k]) => k.startsWith(`${service} `) && f(k.slice(service.length + 1)))
      .reduce((n, [, c]) => n + c, 0) / per;
  const consumerInvocations =
    Object.entries(u.usage.lambda)
      .filter(([e]) => /worker|validator/.test(e))
      .reduce((n, [, f]) => n + f.n, 0) / per;
  const invocations = Object.values(u.usage.lambda).reduce((n, f) => n + f.n, 0) / per;
  const gbSeconds = Object.entries(u.usage.lambda).reduce((s, [e, f]) => s + (u.memory(e) / 1024) * (f.ms / 1000), 0) / per;
  const lambdaMs = Object.values(u.usage.lambda).reduce((n, f) => n + f.ms, 0) / per;
  const sqsRequests = calls('SQS', (op) => op.startsWith('Send')) + 2 * consumerInvocations;
  const s3Put = calls('S3', (op) => !S3_GET_CLASS.has(op));
  const s3Get = calls('S3', (op) => S3_GET_CLASS.has(op));
  const scheduler = calls('Scheduler', (op) => op === 'CreateSchedule');
  const ses = calls('SESv2', (op) => op === 'SendEmail');
  const api = u.apiRequests / per;
  const logBytes = u.usage.logBytes / per + invocations * PLATFORM_LOG_BYTES + api * ACCESS_LOG_BYTES;
  const units = Object.fromEntries(
    Object.entries(u.usage.units).map(([k, v]) => [k, { calls: (u.usage.calls[k] ?? 0) / per, read: v.read / per, write: v.write / per }]),
  );
  const rru = u.usage.readUnits / per;
  const wru = u.usage.writeUnits / per;
  const usd = {
    lambda: invocations * PRICES.lambdaRequest + gbSeconds * PRICES.lambdaGbSecond,
    api: api * PRICES.apiRequest,
    dynamo: rru * PRICES.dynamoRead + wru * PRICES.dynamoWrite,
    sqs: sqsRequests * PRICES.sqsRequest,
    s3: s3Put * PRICES.s3Put + s3Get * PRICES.s3Get,
    scheduler: scheduler * PRICES.schedulerInvocation,
    logs: (logBytes / 1e9) * PRICES.logsIngestedGb,
    xray: api * PRICES.xrayTrace,
    ses: ses * PRICES.sesMessage,
  };
  const total = Object.values(usd).reduce((a, b) => a + b, 0);
  return {
    name: u.name,
    api,
    invocations,
    lambdaMs,
    gbSeconds,
    dynamoCalls: calls('DynamoDB'),
    rru,
    wru,
    sqsMessages: u.usage.sqsMessages / per,
    sqsRequests,
    s3Put,
    s3Get,
    scheduler,
    ses,
    units,
    functionLogBytes: u.usage.logBytes / per,
    logBytes,
    usd,
    total,
  };
}

export async function benchCost(base: string, stateDir: string, port: number): Promise<string> {
  const n = Number(process.env.BENCH_COST_BOOKINGS ?? 10);
  const settlementSize = Number(process.env.BENCH_COST_SETTLEMENT ?? 10_000);
  const { functionLogFile } = await import('../infra/local/logs');
  const { withinInvocation } = await import('../infra/local/lambda');
  const { accessStore } = await import('../shared/access/store');
  const { generatePaymentKey } = await import('../shared/bookings/payment-keys');
  const { sign } = await import('../shared/platform/signature');
  const { addDays, localDate } = await import('../shared/kernel/time');
  const { QUEUES, JOBS } = await import('../shared/queues');
  const { ROUTE_LIST } = await import('../shared/routes');
  const { importJWK } = await import('jose');
  const { signedBookingBody, distinctWhitespace } = await import('./lib');

  // The CDK stack's memory sizes (infra/constructs: ServiceFunction's 512 MB default, PDF routes and jobs 1024 MB, consumers their own).
  const memory = (entry: string) =>
    Object.values(QUEUES).find((q) => q.consumer === entry)?.consumerMemoryMb ??
    (JOBS.some((j) => j.handler === entry) ? 1024 : ROUTE_LIST.some((r) => r.handler === entry && r.rendersPdf) ? 1024 : 512);

  const received = new Set<string>();
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.add(req.headers['x-service-event-id'] as string);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://localhost:${(receiver.address() as AddressInfo).port}/cost`;

  const calibration = await checkCapacityRules();
  const meter = startMeter(functionLogFile(stateDir, port));
  let apiRequests = 0;
  let signed = 0;
  const origin = base.replace(/\/v1$/, '');
  async function send(key: string, method: string, path: string, body?: string) {
    apiRequests++;
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['idempotency-key'] = randomUUID();
      const ts = String(Math.floor(Date.now() / 1000));
      headers['x-timestamp'] = ts;
      headers['x-signature'] = sign(key.split('_')[3]!, ts, method, `/v1${path}`, body);
    }
    const res = await fetch(`${origin}/v1${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const answer: any = await res.json();
    if (res.status >= 300) throw new Error(`cost: ${method} ${path}: HTTP ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  }
  /** Waits until nothing but the pollers' receives has happened for 3 s (the events' fan-out and deliveries are done). */
  async function settled(until: () => boolean = () => true) {
    const busy = () => {
      const u = meter.snapshot();
      return JSON.stringify([Object.entries(u.calls).filter(([k]) => k !== 'SQS ReceiveMessage'), u.lambda]);
    };
    let last = busy();
    let since = Date.now();
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      const now = busy();
      if (now !== last) [last, since] = [now, Date.now()];
      else if (until() && Date.now() - since >= 3000) return;
    }
    throw new Error('cost: the stack did not settle within 120 s');
  }

  async function livePartner(name: string) {
    const p = await accessStore.createPartner({ name });
    const key = p.liveKey.key;
    const pay = await generatePaymentKey(p.partner.partner_id, 'live');
    const signing = await importJWK(pay.private_jwk, 'ES256');
    const list = (await send(key, 'GET', '/adventures?limit=100')).data as { slug: string; bookable: boolean }[];
    let pack: any;
    for (const a of list.filter((x) => x.bookable)) {
      pack = (await send(key, 'GET', `/adventures/${a.slug}`)).rate_packs.find(
        (rp: any) => rp.booking_mode === 'FLEXIBLE' && rp.min_travelers === 1 && rp.schedule.weekdays.length === 7 && rp.booking_window_days >= n + 2,
      );
      if (pack) break;
    }
    if (!pack) throw new Error('cost: no FLEXIBLE pack for single travelers in the live catalog');
    return { key, pay, signing, pack };
  }
  const today = localDate(new Date());
  /** n bookings, one after the other: the quote, then the booking. Returns the usage of those 2n requests and what they caused. */
  async function bookings(p: Awaited<ReturnType<typeof livePartner>>, until?: () => boolean): Promise<UnitCost> {
    await settled();
    const before = meter.snapshot();
    const requests = apiRequests;
    for (let i = 0; i < n; i++) {
      const quoteBody = JSON.stringify({ rate_pack_id: p.pack.id, start_date: addDays(today, 2 + i), start_time: null, travelers: [{ age: 35 }] });
      const q = await send(p.key, 'POST', '/quotes', quoteBody + distinctWhitespace(signed++));
      await send(p.key, 'POST', '/bookings', await signedBookingBody(q, p.pay.kid, p.signing));
    }
    await settled(until);
    return { name: '', apiRequests: apiRequests - requests, usage: diff(meter.snapshot(), before), memory };
  }

  // Warm: each route's first invocation loads its module (a cold start is not what a booking costs at 10 000 a month).
  const warm = await livePartner('Cost Warm-up Bank');
  await bookings(warm);
  const plain = await livePartner('Cost Bench Bank');
  const booking = await bookings(plain);
  const hooked = await livePartner('Cost Bench Hooks Bank');
  await send(hooked.key, 'POST', '/webhooks', JSON.stringify({ url: hookUrl, event_types: ['booking.confirmed'] }));
  received.clear();
  const withDelivery = await bookings(hooked, () => received.size >= n);
  if (received.size !== n) throw new Error(`cost: ${received.size}/${n} deliveries`);
  receiver.close();
  const delivery: UnitCost = { ...withDelivery, apiRequests: 0, usage: diff(withDelivery.usage, booking.usage) };

  // The settlement: the worker's job for one tenant, timed as one invocation of the settlement consumer (1 536 MB).
  const { benchSettlement } = await import('./settlements');
  let settlement: UnitCost | undefined;
  await settled();
  await benchSettlement(settlementSize, async (job) => {
    const before = meter.snapshot();
    const t = performance.now();
    const out = await withinInvocation(randomUUID(), job);
    const ms = performance.now() - t;
    const usage = diff(meter.snapshot(), before);
    // The message the monthly cron sends for this tenant, and the consumer's invocation that takes it.
    usage.lambda = { ...usage.lambda, [QUEUES.settlements!.consumer]: { n: 1, ms } };
    usage.calls['SQS SendMessage'] = (usage.calls['SQS SendMessage'] ?? 0) + 1;
    usage.sqsMessages += 1;
    settlement = { name: '', apiRequests: 0, usage, memory };
    return out;
  });
  meter.stop();

  const rows = [
    costOf({ ...booking, name: 'one booking (quote + booking + its events)' }, n),
    costOf({ ...delivery, name: 'one webhook delivery' }, n),
    costOf({ ...settlement!, name: `one settlement of ${settlementSize} bookings` }),
  ];
  return `${calibration}\n\n${costReport(rows, n, settlementSize)}`;
}

/**
 * The units DynamoDB Local reports, against DynamoDB's billing rules: a transaction costs twice each
 * item's size in KB, a write its item's KB, an update the whole item's KB, a read 4 KB a unit (half
 * when eventually consistent). Throws if they differ: the counts above would not be DynamoDB's.
 */
async function checkCapacityRules(): Promise<string> {
  const { ddb } = await import('../shared/kernel/aws');
  const { dataTable } = await import('../shared/db/client');
  const { TransactWriteCommand, GetCommand, PutCommand, UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  const TableName = dataTable.name();
  const id = randomUUID();
  const key = (k: string) => ({ pk: `bench-capacity#${id}#${k}`, sk: 'x' });
  const units = (out: { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] }) =>
    [out.ConsumedCapacity ?? []].flat().reduce((n, c) => n + (c.CapacityUnits ?? 0), 0);
  const big = 'y'.repeat(3000);
  const seen = {
    'TransactWriteItems of a small item and a 3 KB item': [
      units(
        await ddb.send(
          new TransactWriteCommand({
            ReturnConsumedCapacity: 'TOTAL',
            TransactItems: [{ Put: { TableName, Item: { ...key('a'), v: 'small' } } }, { Put: { TableName, Item: { ...key('b'), v: big } } }],
          }),
        ),
      ),
      8,
    ],
    'PutItem of 3 KB': [units(await ddb.send(new PutCommand({ ReturnConsumedCapacity: 'TOTAL', TableName, Item: { ...key('c'), v: big } }))), 3],
    'UpdateItem of one number on a 3 KB item': [
      units(
        await ddb.send(
          new UpdateCommand({
            ReturnConsumedCapacity: 'TOTAL',
            TableName,
            Key: key('c'),
            UpdateExpression: 'SET n = :n',
            ExpressionAttributeValues: { ':n': 1 },
          }),
        ),
      ),
      3,
    ],
    'GetItem of 3 KB, eventually consistent': [units(await ddb.send(new GetCommand({ ReturnConsumedCapacity: 'TOTAL', TableName, Key: key('c') }))), 0.5],
    'GetItem of 3 KB, strongly consistent': [
      units(await ddb.send(new GetCommand({ ReturnConsumedCapacity: 'TOTAL', TableName, Key: key('c'), ConsistentRead: true }))),
      1,
    ],
  } as const;
  const wrong = Object.entries(seen).filter(([, [got, want]]) => got !== want);
  if (wrong.length > 0) throw new Error(`cost: DynamoDB Local's units differ from DynamoDB's rules: ${JSON.stringify(wrong)}`);
  return `DynamoDB Local's consumed capacity follows DynamoDB's rules: ${Object.entries(seen)
    .map(([what, [got]]) => `${what} ${got}`)
    .join(', ')}.`;
}

const fmt = (x: number, d = 2) => (x === 0 ? '0' : Math.abs(x) < 0.01 && d <= 2 ? x.toPrecision(2) : x.toFixed(d));

export function costReport(rows: ReturnType<typeof costOf>[], n: number, settlementSize: number): string {
  const head = [
    'unit',
    'API requests',
    'Lambda invocations',
    'Lambda ms',
    'GB-s',
    'DynamoDB calls',
    'RRU',
    'WRU',
    'SQS messages',
    'SQS requests',
    'S3 PUT-class',
    'S3 GET-class',
    'Scheduler',
    'SES',
    'function log bytes',
    'all log bytes',
  ];
  const lines = rows.map((r) => [
    r.name,
    fmt(r.api),
    fmt(r.invocations),
    fmt(r.lambdaMs, 0),
    fmt(r.gbSeconds, 3),
    fmt(r.dynamoCalls),
    fmt(r.rru),
    fmt(r.wru),
    fmt(r.sqsMessages),
    fmt(r.sqsRequests),
    fmt(r.s3Put),
    fmt(r.s3Get),
    fmt(r.scheduler),
    fmt(r.ses),
    fmt(r.functionLogBytes, 0),
    fmt(r.logBytes, 0),
  ]);
  const usdHead = ['unit', ...Object.keys(rows[0]!.usd), 'total USD'];
  const usdLines = rows.map((r) => [r.name, ...Object.values(r.usd).map((v) => v.toExponential(2)), r.total.toExponential(3)]);
  const table = (h: string[], ls: string[][]) =>
    [`| ${h.join(' | ')} |`, `|${h.map(() => '---').join('|')}|`, ...ls.map((l) => `| ${l.join(' | ')} |`)].join('\n');
  const breakdown = rows.map(
    (r) =>
      `- ${r.name}: ${Object.entries(r.units)
        .sort((a, b) => b[1].read + b[1].write - (a[1].read + a[1].write))
        .map(([k, u]) => `${k.replace(/^DynamoDB /, '')} ${fmt(u.calls)} calls, ${fmt(u.read)} RRU, ${fmt(u.write)} WRU`)
        .join('; ')}`,
  );
  const [book, deliver, settle] = rows;
  const monthly = settlementSize;
  const parts = {
    [`${monthly} bookings`]: book!.total * monthly,
    [`${monthly} webhook deliveries (one per booking)`]: deliver!.total * monthly,
    'the settlement': settle!.total,
  };
  return [
    `AWS usage per unit of work (bookings: the mean of ${n}; log bytes: the functions' lines as written locally, plus ${PLATFORM_LOG_BYTES} bytes of Lambda platform lines per invocation and a ${ACCESS_LOG_BYTES}-byte API access log line per request):`,
    '',
    table(head, lines),
    '',
    'At eu-west-1 prices (bench/cost.ts PRICES; X-Ray: one trace per API request, an upper bound):',
    '',
    table(usdHead, usdLines),
    '',
    'DynamoDB per operation (per unit):',
    '',
    ...breakdown,
    '',
    `A partner making ${monthly} bookings a month, each with one webhook delivery, and its monthly settlement (variable costs only):`,
    '',
    table(
      ['part', 'USD a month'],
      [
        ...Object.entries(parts).map(([k, v]) => [k, v.toFixed(4)]),
        [
          'total',
          Object.values(parts)
            .reduce((a, b) => a + b, 0)
            .toFixed(4),
        ],
      ],
    ),
  ].join('\n');
}
