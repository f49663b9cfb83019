import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleAdmin } from './console-session';
import { admin, api, newPartner, signatureHeaders, stackRuntime } from './helpers';
import { type HostileRequest, hostileRequest, KNOWN_CRASHERS, localPorts } from './port-fuzz';
import { rawRequest } from './raw-http';

/**
 * Fuzzes every route of the OpenAPI document with generated invalid input:
 * types, sizes, encodings, nesting, cursors, methods, content types and
 * headers, with sandbox and live keys (signed and not). Every answer must be
 * below 500, in the error shape with its request id when it is an error (the
 * `api` helper checks each one against the contract), and must never show a
 * secret, a stack frame, a file path or a storage key the request did not send.
 * The seed is fixed; FUZZ_RUNS sets the number of requests (default 600; a
 * soak: FUZZ_RUNS=20000 npm run test:integration -- fuzz).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
// From an address of its own: its failed authentications must not spend the other suites' budget.
const FROM = '127.0.0.9';
// The dates property sends with a valid key, from an address whose budget the first property's failed authentications did not spend.
const DATES_FROM = '127.0.0.10';
// The nesting property sends with valid credentials too: from an address of its own.
const NESTING_FROM = '127.0.0.11';

interface Op {
  method: string;
  path: string;
  params: string[];
  query: string[];
  body: boolean;
}

let ops: Op[] = [];
let keys: { test: string; live: string };
/** A console session of the partner's admin (a Cognito access token). */
let session = '';
/** Real adventure slugs: a far date reaches the availability code only for an adventure that exists. */
let slugs: string[] = [];
const statuses = new Map<number, number>();

beforeAll(async () => {
  const doc = (await api('GET', '/openapi.json')).body as {
    paths: Record<string, Record<string, { parameters?: { in?: string; name?: string }[]; requestBody?: unknown }>>;
  };
  ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      params: (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name!),
      query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name!),
      body: op.requestBody !== undefined,
    })),
  );
  const p = await newPartner();
  await admin(['partner:set-rate-limit', '--partner', p.partner_id, '--per-minute', '100000', '--json']);
  keys = { test: p.test_key, live: p.live_key };
  session = (await consoleAdmin(p)).session.accessToken;
  slugs = ((await api('GET', '/adventures?limit=3', { key: p.test_key })).body.data as { slug: string }[]).map((a) => a.slug);
});

const junk = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ minLength: 300, maxLength: 3000 }),
  fc.uuid(),
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom(
    '',
    ' ',
    '%',
    '%zz',
    '%00',
    '..',
    '../../etc/passwd',
    'null',
    'true',
    '[]',
    '{}',
    '-1',
    '1e309',
    '<script>alert(1)</script>',
    "' OR 1=1 --",
    'PTB-0000-0000',
    'a'.repeat(257),
  ),
);

/**
 * Dates, months and instants out of any sane range (issue 22: availability to 9999-12-31 answered 500),
 * or that do not exist, as the date parameters of every route take them.
 */
const farDate = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '9999-12-31',
      '9999-12-20',
      '9999-01-01',
      '9000-06-15',
      '0000-01-01',
      '0001-01-01',
      '1899-12-31',
      '2026-02-30',
      '275760-09-13',
      '+010000-01-01',
      '-000001-01-01',
      '9999-12',
      '0000-00',
      '0001-01',
      '9999-12-31T23:59:59Z',
      '0001-01-01T00:00:00Z',
      '2099-01-01T00:00:00+14:00',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .date({ min: new Date(-8_640_000_000_000_000), max: new Date(8_640_000_000_000_000), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 9999 }).map((y) => `${String(y).padStart(4, '0')}-12-31`) },
);
/** The names of the date fields in bodies and queries. */
const DATE_FIELDS = ['start_date', 'birth_date', 'period', 'date', 'from', 'to', 'created_from', 'created_to', 'period_from', 'period_to', 'paid_at'];

/**
 * Bodies nested without bound (issue 40: 8 000 levels answered 500 on every write route): arrays, objects or
 * both in turn, at and around the 64-level limit and far beyond it, alone or under a field of a real body.
 */
const nesting = fc
  .record({
    levels: fc.oneof(fc.constantFrom(63, 64, 65, 10_000), fc.integer({ min: 1, max: 20_000 })),
    shape: fc.constantFrom('arrays', 'objects', 'mixed'),
    under: fc.constantFrom('', 'travelers', 'contact', 'event_types'),
  })
  .map(({ levels, shape, under }) => {
    const open = (i: number) => (shape === 'arrays' || (shape === 'mixed' && i % 2) ? '[' : '{"a":');
    const close = (i: number) => (open(i) === '[' ? ']' : '}');
    let text = '1';
    for (let i = levels - 1; i >= 0; i--) text = `${open(i)}${text}${close(i)}`;
    return { text: under ? `{"${under}":${text}}` : text, depth: levels + (under ? 1 : 0) };
  });

const body = fc.oneof(
  nesting.map(({ text }) => ({ text })),
  fc.dictionary(fc.constantFrom(...DATE_FIELDS), farDate, { minKeys: 1 }).map((v) => ({ text: JSON.stringify(v) })),
  fc
    .record({ rate_pack_id: fc.uuid(), start_date: farDate, travelers: fc.constantFrom([{ age: 30 }], [{ birth_date: '0001-01-01' }]) })
    .map((v) => ({ text: JSON.stringify(v) })),
  fc.jsonValue({ maxDepth: 4 }).map((v) => ({ text: JSON.stringify(v) })),
  fc.dictionary(fc.string({ maxLength: 20 }), junk).map((v) => ({ text: JSON.stringify(v) })),
  fc.nat({ max: 20_000 }).map((n) => ({ text: `${'['.repeat(n)}${']'.repeat(n)}` })),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ bytes })),
  fc.string({ maxLength: 200 }).map((text) => ({ text })),
  fc.constant({ text: `{"a":"${'x'.repeat(300_000)}"}` }),
  fc.constant({ bytes: new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]) }),
  fc.constant({ text: '' }),
);

const request = (op: Op) =>
  fc.record({
    method: fc.oneof(
      { weight: 4, arbitrary: fc.constant(op.method) },
      { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') },
    ),
    params: fc.tuple(
      ...op.params.map((name) =>
        name === 'slug' && slugs.length
          ? fc.oneof(fc.constantFrom(...slugs), junk)
          : fc.oneof(junk, fc.uuid(), fc.constantFrom('PTB-AAAA-BBBB', 'abcdefabcdef')),
      ),
    ),
    query: fc.array(
      fc.oneof(
        fc.tuple(fc.oneof(fc.constantFrom(...op.query, 'cursor', 'limit'), fc.string({ maxLength: 12 })), junk),
        // A far date in each of the operation's date parameters (or any of its parameters, when it has none).
        fc.tuple(fc.constantFrom(...(op.query.some((q) => DATE_FIELDS.includes(q)) ? op.query.filter((q) => DATE_FIELDS.includes(q)) : ['date'])), farDate),
      ),
      { maxLength: 4 },
    ),
    body: fc.option(body, { freq: 4 }),
    contentType: fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      '',
    ),
    auth: fc.constantFrom('test', 'live', 'live-signed', 'none', 'garbage', 'wrong-secret', 'session', 'session-forged', 'jwt-garbage'),
    // A console session's environment: valid, absent, or junk.
    environment: fc.option(fc.oneof(fc.constantFrom('sandbox', 'live', 'test', 'LIVE', ''), junk), { freq: 3 }),
    idempotencyKey: fc.option(fc.oneof(fc.uuid(), junk), { freq: 4 }),
    timestamp: fc.option(fc.oneof(fc.constant(String(Math.floor(Date.now() / 1000))), junk)),
  });

/** What HTTP/1.1 can carry in a header value: Latin-1 without control characters (anything else never leaves the client). */
const headerSafe = (s: string) =>
  [...s]
    .map((c) => {
      const code = c.codePointAt(0)!;
      return code < 0x20 || code === 0x7f ? ' ' : code > 0xff ? '?' : c;
    })
    .join('');

/** Storage keys, stack frames and file paths that an answer must never show unless the request sent them itself. */
const LEAKS = [
  /\b(QUOTE|BOOKING|IDEM|PARTNER|KEY|RATE|AUTHFAIL|SIG|AUDIT|INV|CAT|EVT|EVENTS|DLV|DLVS|WH|PREF|TENANT|PAYKEYS|QADV|BKDATE)#/,
  // A stack frame: `at fn (/path/file.js:1:2)` or `at /path/file.js:1:2` (not prose followed by a time, as in review texts: `at its best ... 20:09:00`).
  /\bat (?:\S+ \()?[\w./:-]+:\d+:\d+\)?/,
  /\/(work|home|tmp|var)\/\S+\.(ts|js)/,
  /node_modules/,
  /Exception\b/,
];

describe('fuzz', () => {
  it(`answers ${RUNS} generated invalid requests across every route below 500, in the error shape, leaking nothing`, async () => {
    const perOp = Math.max(5, Math.ceil(RUNS / ops.length));
    let sent = 0;
    for (const op of ops) {
      await fc.assert(
        fc.asyncProperty(request(op), async (r) => {
          let path = op.path;
          op.params.forEach((name, i) => {
            path = path.replace(`{${name}}`, encodeURIComponent(r.params[i] ?? ''));
          });
          const qs = new URLSearchParams(r.query).toString();
          const fullPath = qs ? `${path}?${qs}` : path;
          const bytes = r.body ? ('bytes' in r.body ? r.body.bytes : new TextEncoder().encode(r.body.text)) : undefined;
          const headers: Record<string, string> = {};
          if (r.contentType) headers['content-type'] = r.contentType;
          if (r.idempotencyKey !== null) headers['idempotency-key'] = headerSafe(r.idempotencyKey).slice(0, 8000);
          if (r.timestamp !== null) headers['x-timestamp'] = headerSafe(r.timestamp).slice(0, 200);
          const key =
            r.auth === 'test' ? keys.test : r.auth.startsWith('live') ? keys.live : r.auth === 'wrong-secret' ? `${keys.test.slice(0, -4)}AAAA` : undefined;
          if (r.auth === 'garbage') headers.authorization = 'Bearer sk_live_%%%';
          // Console sessions: the real token, one whose payload was changed (its signature no longer matches), or three parts of junk.
          if (r.auth === 'session') headers.authorization = `Bearer ${session}`;
          if (r.auth === 'session-forged') headers.authorization = `Bearer ${session.replace(/\.[\w-]{8}/, '.eyJzdWIiOi')}`;
          if (r.auth === 'jwt-garbage') headers.authorization = 'Bearer eyJhbGciOiJub25lIn0.eyJ0b2tlbl91c2UiOiJhY2Nlc3MifQ.c2lnbmF0dXJl';
          if (r.auth.startsWith('session') && r.environment !== null) headers['x-environment'] = headerSafe(r.environment).slice(0, 200);
          if (r.auth === 'live-signed') Object.assign(headers, signatureHeaders(keys.live, r.method, fullPath, bytes ?? new Uint8Array()));
          // The api helper checks the contract of every answer: the route's schema for a 2xx, the error shape otherwise.
          const res = await api(r.method, fullPath, { key, rawBody: bytes, headers, localAddress: FROM });
          sent++;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          expect(res.status, `${r.method} ${fullPath}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
          const sentText = `${fullPath} ${JSON.stringify(headers)} ${bytes ? Buffer.from(bytes).toString('utf8') : ''}`;
          for (const secret of [keys.test, keys.live].map((k) => k.split('_')[3]!)) expect(res.text).not.toContain(secret);
          expect(res.text).not.toContain(session.split('.')[2]!);
          // The public documents (the OpenAPI document, the reference page and its inlined scripts) are the same
          // static text for every request: their examples' times and the page's code are not leaks of this request.
          const staticDocument = res.status < 300 && (op.path === '/openapi.json' || op.path === '/docs');
          for (const leak of staticDocument ? [] : LEAKS) {
            const m = leak.exec(res.text);
            if (m) expect(sentText, `${r.method} ${fullPath} answered ${m[0]}: ${res.text.slice(0, 300)}`).toContain(m[0]);
          }
        }),
        { seed: SEED, numRuns: perOp, endOnFailure: true },
      );
    }
    const summary = [...statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
    console.log(
      `fuzz: ${sent} requests over ${ops.length} operations (seed ${SEED}); statuses ${summary.join(', ')}; 5xx: ${[...statuses.keys()].filter((s) => s >= 500).length}`,
    );
    expect(sent).toBe(ops.length * perOp);
  }, 600_000);

  it('answers bodies nested at, around and far beyond the 64-level limit on every write route below 500: beyond it, request.body.too_deep', async () => {
    const writes = ops.filter((op) => op.body && op.method !== 'GET');
    expect(writes.length).toBeGreaterThan(20);
    const seen = new Map<string, number>();
    for (const op of writes) {
      await fc.assert(
        fc.asyncProperty(nesting, fc.constantFrom('test', 'live-signed', 'session'), async (n, auth) => {
          const path = op.path.replace(/\{[^}]+\}/g, 'x1');
          const headers: Record<string, string> = { 'content-type': 'application/json', 'idempotency-key': randomUUID() };
          if (auth === 'session') Object.assign(headers, { authorization: `Bearer ${session}`, 'x-environment': 'sandbox' });
          if (auth === 'live-signed') Object.assign(headers, signatureHeaders(keys.live, op.method, path, n.text));
          const key = auth === 'test' ? keys.test : auth === 'live-signed' ? keys.live : undefined;
          const res = await api(op.method, path, { key, rawBody: n.text, headers, localAddress: NESTING_FROM });
          const label = `${op.method} ${path} (${auth}, ${n.depth} levels): ${res.text.slice(0, 300)}`;
          expect(res.status, label).toBeLessThan(500);
          // Beyond the limit, a request that reaches the body's checks is refused for its depth; within it, never.
          if (res.status === 400) expect(res.body.code === 'request.body.too_deep', label).toBe(n.depth > 64);
          seen.set(res.body?.code ?? String(res.status), (seen.get(res.body?.code ?? String(res.status)) ?? 0) + 1);
        }),
        { seed: SEED, numRuns: 4, endOnFailure: true },
      );
    }
    console.log(`fuzz nesting: ${writes.length * 4} requests over ${writes.length} write operations; answers ${JSON.stringify(Object.fromEntries(seen))}`);
    expect(seen.get('request.body.too_deep')).toBeGreaterThan(writes.length);
  }, 600_000);

  it('answers far, ancient and impossible dates in every date query parameter of every route below 500', async () => {
    const dated = ops.filter((op) => op.method === 'GET' && op.query.some((q) => DATE_FIELDS.includes(q)));
    expect(dated.length).toBeGreaterThan(0);
    let sent = 0;
    for (const op of dated) {
      const names = op.query.filter((q) => DATE_FIELDS.includes(q));
      // The same date in every date parameter (a range of one day, as from=to=9999-12-31), or one each.
      const dates = fc.oneof(
        farDate.map((d) => names.map((n) => [n, d] as [string, string])),
        fc
          .tuple(...names.map((n) => fc.option(farDate, { nil: undefined }).map((d) => [n, d] as const)))
          .map((q) => q.filter((x): x is [string, string] => !!x[1])),
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...(slugs.length ? slugs : ['none'])), dates, async (slug, query) => {
          const path = `${op.path.replace('{slug}', slug)}?${new URLSearchParams(query).toString()}`;
          const res = await api('GET', path, { key: keys.test, localAddress: DATES_FROM });
          sent++;
          expect(res.status, `GET ${path}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
        }),
        { seed: SEED, numRuns: 40, endOnFailure: true },
      );
    }
    console.log(`fuzz dates: ${sent} requests over ${dated.map((op) => op.path).join(', ')}`);
  }, 600_000);
});

/**
 * Every port the local stack opens (issue 40, 2: one URL on the console's port ended the whole stack), found from its
 * runtime file: the API and its gateway layer, the console, Cognito, S3, SQS, SES, the Scheduler and the layer in
 * front of DynamoDB Local, each sent what the fuzzing found and generated hostile requests (malformed paths and
 * percent-encodings, odd methods and versions, repeated, invalid and huge headers, truncated and undelimited bodies).
 * An answer is never a crash: a status below 500 (or S3's 501 NotImplemented, an answer of S3's own), and none only
 * when the client went away first. After each, the stack's process lives and the port answers a harmless request.
 */
describe("the local stack's ports", () => {
  const PORT_RUNS = Number(process.env.PORT_FUZZ_RUNS ?? 20);

  it(`answers what crashed it and ${PORT_RUNS} hostile requests on each of its ports without a crash, and still answers after each`, async () => {
    const runtime = stackRuntime();
    const ports = localPorts(runtime);
    expect(ports.map((p) => p.name)).toEqual(['api', 'console', 'cognito', 's3', 'sqs', 'ses', 'scheduler', 'dynamodb']);
    const alive = () => {
      try {
        process.kill(runtime.pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const sent = new Map<string, number>();
    for (const port of ports) {
      const check = async (r: HostileRequest) => {
        const answer = await rawRequest(port.port, r.bytes, { truncated: r.leaves });
        sent.set(port.name, (sent.get(port.name) ?? 0) + 1);
        const label = `${port.name} (${port.port}): ${r.label.slice(0, 200)} answered ${answer.status ?? (answer.timedOut ? 'nothing in 5 s' : 'nothing')}: ${answer.text.slice(0, 200)}`;
        if (!r.leaves) expect(answer.status, label).toBeDefined();
        if (answer.status !== undefined) expect(answer.status < 500 || (port.name === 's3' && answer.status === 501), label).toBe(true);
        expect(alive(), `the stack's process exited after ${label}`).toBe(true);
        const probe = await rawRequest(port.port, port.probe);
        expect(probe.status, `${port.name} after ${label}: ${probe.text.slice(0, 200)}`).toBeLessThan(500);
      };
      for (const r of KNOWN_CRASHERS) await check(r);
      await fc.assert(fc.asyncProperty(hostileRequest(port), check), { seed: SEED, numRuns: PORT_RUNS, endOnFailure: true });
    }
    // Every port still answers, and the API serves a keyed request.
    for (const port of ports) expect((await rawRequest(port.port, port.probe)).status, port.name).toBeLessThan(500);
    expect((await api('GET', '/me', { key: keys.test })).status).toBe(200);
    console.log(`fuzz ports: ${[...sent].map(([name, n]) => `${name} ${n}`).join(', ')} hostile requests (each followed by a probe); 0 crashes, 0 5xx`);
  }, 600_000);
});
