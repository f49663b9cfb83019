import { spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type SignatureDiagnostics, type SignatureVersion, signatureDiagnostics, signatureMismatch, signRequestVersion } from '../../sdk/src/index';
import { addDays, localDate } from '../../shared/kernel/time';
import { packs } from './booking-helpers';
import { api, baseUrl, newPartner, secretOf } from './helpers';

const ROOT = resolve(import.meta.dirname, '..', '..');

async function quoteBody(testKey: string) {
  const P = await packs(testKey);
  return JSON.stringify({ rate_pack_id: P.FLEXIBLE.id, start_date: addDays(localDate(new Date()), 6), start_time: null, travelers: [{ age: 30 }] });
}

/** One app server: a process with its own SDK client (sdk-write-at.ts), answering once it is ready to send. */
function appServer(env: NodeJS.ProcessEnv) {
  const child = spawn('node', ['--import', 'tsx', 'test/integration/sdk-write-at.ts'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c;
  });
  const ready = new Promise<void>((ok) => child.stdout.on('data', () => out.startsWith('ready\n') && ok()));
  const done = new Promise<any>((ok, fail) => child.on('exit', (code) => (code === 0 ? ok(JSON.parse(out.slice('ready\n'.length))) : fail(new Error(out)))));
  return { ready, done, send: (at: number) => child.stdin.end(`${at}\n`) };
}

/** Two app servers send the same live POST /quotes at the start of one second, once both are ready. */
async function twoServers(liveKey: string, body: string, version: SignatureVersion) {
  const env = { ...process.env, API_KEY: liveKey, BASE_URL: baseUrl(), BODY: body, SIGNATURE_VERSION: String(version) };
  const servers = [appServer(env), appServer(env)];
  await Promise.all(servers.map((s) => s.ready));
  const at = (Math.floor(Date.now() / 1000) + 1) * 1000 + 50;
  for (const s of servers) s.send(at);
  return Promise.all(servers.map((s) => s.done));
}

/** A live POST /quotes signed over `signed` and sent as `sent`: what a client whose request changed on its way produces. */
async function signedAs(liveKey: string, signed: Sent, sent: Sent) {
  const v: SignatureVersion = signed.version === '2' ? 2 : 1;
  const signature = signRequestVersion(
    v,
    secretOf(liveKey),
    { timestamp: signed.timestamp, method: signed.method, pathWithQuery: `/v1${signed.path}`, idempotencyKey: signed.key },
    signed.body,
  );
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'idempotency-key': sent.key,
    'x-timestamp': sent.timestamp,
    'x-signature': signature,
  };
  if (sent.version) headers['x-signature-version'] = sent.version;
  const res = await api(sent.method, sent.path, { key: liveKey, rawBody: sent.body, headers });
  const mine = signatureDiagnostics(
    v,
    { timestamp: signed.timestamp, method: signed.method, pathWithQuery: `/v1${signed.path}`, idempotencyKey: signed.key },
    signed.body,
  );
  return { res, signature, mine };
}
interface Sent {
  version?: string;
  timestamp: string;
  method: string;
  path: string;
  key: string;
  body: string;
}

describe('signature version 2 (X-Signature-Version: 2, the Idempotency-Key signed)', () => {
  it('identical live writes from two processes in the same second both succeed; under version 1 the second is refused, saying why and what to do', async () => {
    const p = await newPartner();
    const body = await quoteBody(p.test_key);
    const v2 = await twoServers(p.live_key, body, 2);
    expect(v2[0].timestamp).toBe(v2[1].timestamp);
    expect(v2.map((r) => r.status)).toEqual([201, 201]);
    expect(v2[0].id).not.toBe(v2[1].id);

    // The spec's version: identical in everything it signs, so one signature for both; it is accepted once.
    const v1 = await twoServers(p.live_key, body, 1);
    expect(v1[0].timestamp).toBe(v1[1].timestamp);
    expect(v1.map((r) => r.status).sort()).toEqual([201, 401]);
    const refused = v1.find((r) => r.status === 401);
    expect(refused.code).toBe('auth.signature.replayed');
    expect(refused.message).toContain('same second');
    expect(refused.message).toContain('X-Signature-Version: 2');
    expect((await api('GET', '/quotes', { key: p.live_key })).body.data).toHaveLength(3);
  });

  it('a captured request replayed with another Idempotency-Key creates nothing; with its own it gets the stored answer', async () => {
    const p = await newPartner();
    const body = await quoteBody(p.test_key);
    const key = randomUUID();
    const timestamp = String(Math.floor(Date.now() / 1000));
    const captured = {
      'content-type': 'application/json',
      'idempotency-key': key,
      'x-timestamp': timestamp,
      'x-signature-version': '2',
      'x-signature': signRequestVersion(2, secretOf(p.live_key), { timestamp, method: 'POST', pathWithQuery: '/v1/quotes', idempotencyKey: key }, body),
    };
    const first = await api('POST', '/quotes', { key: p.live_key, rawBody: body, headers: captured });
    expect(first.status, first.text).toBe(201);
    const otherKey = await api('POST', '/quotes', { key: p.live_key, rawBody: body, headers: { ...captured, 'idempotency-key': randomUUID() } });
    expect(otherKey.status).toBe(401);
    expect(otherKey.body.code).toBe('auth.signature.invalid');
    // Without the version header the same bytes are checked as version 1, which this signature is not either.
    const { 'x-signature-version': _, ...asV1 } = captured;
    expect((await api('POST', '/quotes', { key: p.live_key, rawBody: body, headers: { ...asV1, 'idempotency-key': randomUUID() } })).status).toBe(401);
    const again = await api('POST', '/quotes', { key: p.live_key, rawBody: body, headers: captured });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect((await api('GET', '/quotes', { key: p.live_key })).body.data).toHaveLength(1);
  });

  it('an X-Signature-Version the service does not know is 401 auth.signature.invalid naming the versions', async () => {
    const p = await newPartner();
    const res = await api('POST', '/quotes', {
      key: p.live_key,
      rawBody: '{}',
      headers: {
        'idempotency-key': randomUUID(),
        'x-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-signature': '0'.repeat(64),
        'x-signature-version': '3',
      },
    });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'auth.signature.invalid', details: { announced_version: '3', supported_versions: [1, 2] } });
  });
});

describe('signature diagnostics (details of auth.signature.invalid)', () => {
  it('show what the service signed, so the one part that differs is found; never the secret nor the expected signature', async () => {
    const p = await newPartner();
    const body = await quoteBody(p.test_key);
    const now = String(Math.floor(Date.now() / 1000));
    const base: Sent = { version: '2', timestamp: now, method: 'POST', path: '/quotes', key: randomUUID(), body };
    const cases: [SignatureDiagnostics extends infer D ? keyof D : never, Partial<Sent>][] = [
      ['timestamp', { timestamp: String(Number(now) - 1) }],
      ['method', { method: 'PUT' }],
      ['path', { path: '/quotes?source=app' }],
      ['idempotency_key', { key: randomUUID() }],
      ['body_sha256', { body: body.replace('"travelers"', '"travelers" ') }],
      ['signature_version', { version: '1' }],
    ];
    for (const [part, signedDifferently] of cases) {
      const signed = { ...base, ...signedDifferently };
      const { res, signature, mine } = await signedAs(p.live_key, signed, base);
      expect(res.status, part).toBe(401);
      expect(res.body.code).toBe('auth.signature.invalid');
      expect(res.body.message).toContain('string_to_sign');
      const service = res.body.details as SignatureDiagnostics;
      // What the service received, part by part.
      expect(service).toMatchObject({ signature_version: 2, timestamp: now, method: 'POST', path: '/v1/quotes', idempotency_key: base.key });
      expect(service.body_length).toBe(Buffer.byteLength(body));
      expect(service.string_to_sign).toBe(`v2\n${now}\nPOST\n/v1/quotes\n${base.key}\n${service.body_sha256}`);
      const differing = signatureMismatch(service, mine).map((m) => m.part);
      expect(differing, part).toContain(part);
      expect(
        differing.every((d) => d === part || (part === 'body_sha256' && d === 'body_length') || (part === 'signature_version' && d === 'idempotency_key')),
      ).toBe(true);
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(secretOf(p.live_key));
      expect(text).not.toContain(signature);
      const expected = signRequestVersion(
        2,
        secretOf(p.live_key),
        { timestamp: now, method: 'POST', pathWithQuery: '/v1/quotes', idempotencyKey: base.key },
        body,
      );
      expect(text).not.toContain(expected);
    }
    // The same for the spec's version, whose signing string has no version line nor key.
    const v1 = await signedAs(p.live_key, { ...base, version: undefined, path: '/quotes?x=1' }, { ...base, version: undefined });
    expect(v1.res.body.details).toEqual({
      signature_version: 1,
      timestamp: now,
      method: 'POST',
      path: '/v1/quotes',
      body_length: Buffer.byteLength(body),
      body_sha256: v1.mine.body_sha256,
      string_to_sign: `${now}\nPOST\n/v1/quotes\n${v1.mine.body_sha256}`,
    });
    expect(signatureMismatch(v1.res.body.details, v1.mine).map((m) => m.part)).toEqual(['path']);
    // All parts agree: then it is the secret, and the signature over the received parts proves it.
    const wrongSecret = createHmac('sha256', 'not-the-secret').update(`${now}\nPOST\n/v1/quotes\n${body}`).digest('hex');
    const r = await api('POST', '/quotes', {
      key: p.live_key,
      rawBody: body,
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID(), 'x-timestamp': now, 'x-signature': wrongSecret },
    });
    expect(signatureMismatch(r.body.details, signatureDiagnostics(1, { timestamp: now, method: 'POST', pathWithQuery: '/v1/quotes' }, body))).toEqual([]);
    expect((await api('GET', '/quotes', { key: p.live_key })).body.data).toHaveLength(0);
  });
});
