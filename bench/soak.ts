import '../scripts/quiet-sdk';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type MemorySample, memoryGrowth, percentile } from './lib';

/**
 * The soak: a sustained mixed load of many partners against the local stack
 * booted in this process, for BENCH_SOAK_SECONDS (300 by default). Each of
 * BENCH_SOAK_PARTNERS (20) partners sends BENCH_SOAK_RATE operations a second
 * (3, i.e. about 200 requests a minute, under the default 600 per key) on its
 * own sandbox key: catalog listings and adventure details most of the time,
 * then quotes, bookings (a quote, then the booking with its signed payment
 * confirmation) and cancellations of some of its bookings. Arrivals are on a
 * fixed schedule (open loop): an arrival finding BENCH_SOAK_IN_FLIGHT (4) of
 * its partner's requests still in flight is skipped and counted, so a slow
 * stack shows as skipped arrivals rather than as a silently lower rate.
 *
 * Every partner has a webhook endpoint registered by host name
 * (http://localhost:<port>/...) on a receiver in this process, which records
 * when each event arrives. Memory (after a forced GC, so the figure is live
 * memory) is sampled every 10 s, with DynamoDB Local's RSS read from /proc.
 */
export interface SoakOptions {
  base: string;
  javaPid?: number;
  seconds?: number;
  partners?: number;
  ratePerPartner?: number;
  inFlightPerPartner?: number;
}

export interface SoakResult {
  report: string;
  serverErrors: number;
  growth: ReturnType<typeof memoryGrowth>;
}

type Op = 'listing' | 'detail' | 'quote' | 'booking' | 'cancel';
/** Share of each operation among the arrivals (a booking sends a quote first, a cancel needs a booking of the partner). */
const MIX: [Op, number][] = [
  ['listing', 0.45],
  ['detail', 0.27],
  ['quote', 0.14],
  ['booking', 0.1],
  ['cancel', 0.04],
];

/** Node's GC, callable without --expose-gc on the command line (the flag is set before the function is first looked up). */
function forceGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const mb = (b: number) => b / 1024 / 1024;

function javaRssMb(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const seconds = o.seconds ?? Number(process.env.BENCH_SOAK_SECONDS ?? 300);
  const partnerCount = o.partners ?? Number(process.env.BENCH_SOAK_PARTNERS ?? 20);
  const rate = o.ratePerPartner ?? Number(process.env.BENCH_SOAK_RATE ?? 1);
  const inFlightCap = o.inFlightPerPartner ?? Number(process.env.BENCH_SOAK_IN_FLIGHT ?? 4);
  const warmupSec = Math.min(60, Math.floor(seconds / 5));
  const { base } = o;
  const { accessStore } = await import('../shared/access/store');
  const { generatePaymentKey } = await import('../shared/bookings/payment-keys');
  const { addDays, localDate } = await import('../shared/kernel/time');
  const { DEFAULT_RATE_LIMIT_PER_MINUTE } = await import('../shared/access/model');
  const { importJWK } = await import('jose');
  const { signedBookingBody } = await import('./lib');
  const gc = forceGc();

  // The receiver: the first arrival of each event, and its delay from the event's created_at.
  const received = new Set<string>();
  /** "type booking_number" of every event received, and its dispatch delay: matched against the writes answered 2xx. */
  const receivedOf = new Map<string, number>();
  let duplicates = 0;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const id = req.headers['x-service-event-id'] as string;
      if (received.has(id)) duplicates++;
      else {
        received.add(id);
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        receivedOf.set(`${event.type} ${event.data?.booking_number}`, at - Date.parse(event.created_at));
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookBase = `http://localhost:${(receiver.address() as AddressInfo).port}`;

  const today = localDate(new Date());
  interface SoakPartner {
    n: number;
    key: string;
    kid: string;
    signing: Awaited<ReturnType<typeof importJWK>>;
    slugs: string[];
    packs: { id: string }[];
    bookings: string[];
    inFlight: number;
  }
  const partners: SoakPartner[] = [];
  for (let i = 0; i < partnerCount; i++) {
    // The default rate limit, on purpose: a 429 here means a partner went over it.
    const p = await accessStore.createPartner({ name: `Soak Partner ${i + 1}` });
    const key = p.testKey.key;
    const pay = await generatePaymentKey(p.partner.partner_id);
    const signing = await importJWK(pay.private_jwk, 'ES256');
    const hook = await fetch(`${base}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ url: `${hookBase}/soak/${i + 1}`, event_types: ['booking.confirmed', 'booking.cancelled'] }),
    });
    if (hook.status !== 201) throw new Error(`soak: create webhook: HTTP ${hook.status} ${await hook.text()}`);
    const get = async (path: string) => (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<any>;
    const list = (await get('/adventures?limit=100')).data as { slug: string; bookable: boolean }[];
    const packs: any[] = [];
    for (const a of list.filter((x) => x.bookable)) {
      const found = (await get(`/adventures/${a.slug}`)).rate_packs.find(
        (rp: any) => rp.booking_mode === 'FLEXIBLE' && rp.min_travelers === 1 && rp.schedule.weekdays.length === 7 && rp.booking_window_days >= 40,
      );
      if (found) packs.push(found);
      if (packs.length >= 6) break;
    }
    if (packs.length === 0) throw new Error('soak: no FLEXIBLE pack for single travelers in the sandbox catalog');
    partners.push({ n: i + 1, key, kid: pay.kid, signing, slugs: list.map((a) => a.slug), packs, bookings: [], inFlight: 0 });
  }

  // Per operation: latencies (ms), and answers by status.
  const times = new Map<string, number[]>();
  const statuses = new Map<string, Map<number, number>>();
  const tooMany = new Map<number, number>();
  // Requests answered since the previous memory sample, and their p50: whether the load held over time.
  let window: number[] = [];
  const windows: { requests: number; p50: number }[] = [];
  let serverErrors = 0;
  let skipped = 0;
  const expected = new Set<string>();
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)]!;
  async function call(op: string, p: SoakPartner, path: string, init: RequestInit = {}) {
    const t = performance.now();
    const res = await fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${p.key}`, ...(init.headers ?? {}) } });
    const text = await res.text();
    const ms = performance.now() - t;
    if (!times.has(op)) times.set(op, []);
    times.get(op)!.push(ms);
    window.push(ms);
    const byStatus = statuses.get(op) ?? new Map<number, number>();
    statuses.set(op, byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1));
    if (res.status >= 500) {
      serverErrors++;
      if (serverErrors <= 5) console.error(`soak: ${op} ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
    }
    if (res.status === 429) tooMany.set(p.n, (tooMany.get(p.n) ?? 0) + 1);
    return { status: res.status, body: text };
  }
  const write = (body: string) => ({ method: 'POST', headers: { 'idempotency-key': randomUUID(), 'content-type': 'application/json' }, body });
  const listings = () => {
    const date = addDays(today, 1 + Math.floor(Math.random() * 30));
    return pick([
      '/adventures?limit=25',
      '/adventures?sort=price&limit=25',
      '/adventures?sort=-price&limit=25',
      '/adventures?sort=distance&lat=31.63&lng=-7.99&limit=25',
      `/adventures?q=desert&date=${date}&sort=price&limit=25`,
      '/adventures?city=Marrakech&min_price=100&max_price=2000&limit=25',
      `/adventures?date=${date}&limit=10`,
    ]);
  };
  async function quote(p: SoakPartner) {
    const pack = pick(p.packs);
    const body = { rate_pack_id: pack.id, start_date: addDays(today, 2 + Math.floor(Math.random() * 38)), start_time: null, travelers: [{ age: 35 }] };
    return call('POST /v1/quotes', p, '/quotes', write(JSON.stringify(body)));
  }
  async function operate(op: Op, p: SoakPartner) {
    if (op === 'listing') await call('GET /v1/adventures (sorts, filters)', p, listings());
    else if (op === 'detail') await call('GET /v1/adventures/{slug}', p, `/adventures/${pick(p.slugs)}`);
    else if (op === 'quote') await quote(p);
    else if (op === 'booking' || (op === 'cancel' && p.bookings.length === 0)) {
      const q = await quote(p);
      if (q.status !== 201) return;
      const body = await signedBookingBody(JSON.parse(q.body), p.kid, p.signing);
      const r = await call('POST /v1/bookings', p, '/bookings', write(body));
      if (r.status === 201) {
        const number = JSON.parse(r.body).booking_number;
        expected.add(`booking.confirmed ${number}`);
        p.bookings.push(number);
      }
    } else {
      const number = p.bookings.splice(Math.floor(Math.random() * p.bookings.length), 1)[0]!;
      const r = await call('POST /v1/bookings/{number}/cancel', p, `/bookings/${number}/cancel`, write(JSON.stringify({ reason: 'soak' })));
      if (r.status === 200) expected.add(`booking.cancelled ${number}`);
    }
  }
  const choose = (): Op => {
    const x = Math.random();
    let upTo = 0;
    for (const [op, share] of MIX) {
      upTo += share;
      if (x < upTo) return op;
    }
    return 'listing';
  };

  // Each write route's first invocation loads its module: done once before the clock starts, as on a warm stack.
  await operate('booking', partners[0]!);
  await operate('cancel', partners[0]!);
  times.clear();
  statuses.clear();
  const warmUp = new Set(expected);
  expected.clear();
  window = [];

  // Memory every 10 s from the start of the load (t = 0 after a GC).
  const samples: MemorySample[] = [];
  const javaRss: (number | undefined)[] = [];
  const started = performance.now();
  const sample = () => {
    const done = window.sort((a, b) => a - b);
    windows.push({ requests: done.length, p50: percentile(done, 50) });
    window = [];
    gc();
    const m = process.memoryUsage();
    samples.push({ t: (performance.now() - started) / 1000, rss: mb(m.rss), heap: mb(m.heapUsed) });
    javaRss.push(javaRssMb(o.javaPid));
  };
  sample();
  const sampler = setInterval(sample, 10_000);
  const end = started + seconds * 1000;
  const interval = 1000 / rate;
  const running = new Set<Promise<void>>();
  await Promise.all(
    partners.map(async (p, i) => {
      // Partners start spread over one interval, so arrivals do not all fall on the same millisecond.
      let next = started + (interval * i) / partners.length;
      while (next < end) {
        const wait = next - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        next += interval;
        if (p.inFlight >= inFlightCap) {
          skipped++;
          continue;
        }
        p.inFlight++;
        const job = operate(choose(), p)
          .catch((e) => {
            serverErrors++;
            console.error(`soak: partner ${p.n}: ${(e as Error).message}`);
          })
          .finally(() => {
            p.inFlight--;
            running.delete(job);
          });
        running.add(job);
      }
    }),
  );
  await Promise.all(running);
  const loadSecs = (performance.now() - started) / 1000;
  sample();
  clearInterval(sampler);
  // Deliveries still on their way when the load stops: wait for them (up to 60 s).
  const drainUntil = Date.now() + 60_000;
  const missing = () => [...expected].filter((e) => !receivedOf.has(e)).length;
  while (missing() > 0 && Date.now() < drainUntil) await new Promise((r) => setTimeout(r, 200));
  receiver.close();

  const rows = [...times.entries()].map(([op, ts]) => {
    const sorted = ts.sort((a, b) => a - b);
    const by = statuses.get(op)!;
    const count = (f: (s: number) => boolean) => [...by].filter(([s]) => f(s)).reduce((n, [, c]) => n + c, 0);
    return [
      op,
      String(ts.length),
      (ts.length / loadSecs).toFixed(2),
      percentile(sorted, 50).toFixed(1),
      percentile(sorted, 99).toFixed(1),
      String(count((s) => s < 300)),
      String(count((s) => s >= 400 && s < 500 && s !== 429)),
      String(count((s) => s === 429)),
      String(count((s) => s >= 500)),
    ];
  });
  const total = rows.reduce((n, r) => n + Number(r[1]), 0);
  const growth = memoryGrowth(samples, warmupSec);
  // The warm-up's events are left out; events of writes answered 5xx (a timeout that committed all the same) are counted apart.
  const delivered = [...receivedOf].filter(([e]) => !warmUp.has(e));
  const unanswered = delivered.filter(([e]) => !expected.has(e)).length;
  const sortedDelays = delivered.map(([, d]) => d).sort((a, b) => a - b);
  const over = [...tooMany].map(([n, c]) => `partner ${n}: ${c}`).join(', ');
  const report = [
    `Soak: ${partnerCount} partners x ${rate} operations/s for ${loadSecs.toFixed(0)} s (sandbox keys, default rate limit ${DEFAULT_RATE_LIMIT_PER_MINUTE}/min per key; ` +
      `at most ${inFlightCap} requests in flight per partner), ${total} requests, ${(total / loadSecs).toFixed(1)} requests/s; ` +
      `arrivals skipped (partner at its in-flight cap): ${skipped}`,
    '',
    textTable(['operation', 'requests', 'per s', 'p50 ms', 'p99 ms', '2xx', '4xx (not 429)', '429', '5xx'], rows),
    '',
    `5xx: ${serverErrors} (must be 0). 429: ${[...tooMany.values()].reduce((a, b) => a + b, 0)}${over ? ` (${over})` : ''}.`,
    `Webhooks (booking.confirmed and booking.cancelled to ${partnerCount} endpoints at ${hookBase.replace(/:\d+$/, ':<port>')}): delivered ${expected.size - missing()}/${expected.size} ` +
      'of the events of bookings and cancellations answered 2xx' +
      `${unanswered ? `, and ${unanswered} of writes answered 5xx (their timeout) that committed all the same` : ''}` +
      `${duplicates ? `, ${duplicates} received again` : ''}; dispatch delay (event created_at -> receipt) p50 ${percentile(sortedDelays, 50)} ms, ` +
      `p99 ${percentile(sortedDelays, 99)} ms, max ${sortedDelays.at(-1) ?? NaN} ms.`,
    '',
    'Memory of this process (the API emulation, the functions, the pollers and the bench) after a forced GC, every 10 s; DynamoDB Local is the Java process:',
    '',
    textTable(
      ['time s', 'requests since the last sample', 'their p50 ms', 'RSS MB', 'heap used MB', 'DynamoDB Local RSS MB'],
      samples.map((s, k) => [
        s.t.toFixed(0),
        String(windows[k]!.requests),
        windows[k]!.requests ? windows[k]!.p50.toFixed(1) : '-',
        s.rss.toFixed(1),
        s.heap.toFixed(1),
        javaRss[k] === undefined ? '-' : javaRss[k]!.toFixed(0),
      ]),
    ),
    '',
    growthLine(growth, warmupSec),
  ].join('\n');
  return { report, serverErrors, growth };
}

export function growthLine(g: ReturnType<typeof memoryGrowth>, warmupSec: number): string {
  if (g.verdict === 'too short') return `Memory verdict: too few samples after the ${warmupSec} s warm-up to compare halves.`;
  const f = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;
  return (
    `Memory after the ${warmupSec} s warm-up, mean of the second half against the first: heap ${g.first.heap.toFixed(1)} -> ${g.second.heap.toFixed(1)} MB ` +
    `(${f(g.perMinute.heap)} MB/min), RSS ${g.first.rss.toFixed(1)} -> ${g.second.rss.toFixed(1)} MB (${f(g.perMinute.rss)} MB/min). ` +
    `Verdict: ${g.verdict === 'flat' ? 'no growth with requests' : 'GROWS with requests (a leak)'} (heap growth limit ${g.limitMbPerMinute} MB/min).`
  );
}

function textTable(head: string[], lines: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n');
}
