import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../../infra/local/services';
import { api, baseUrl, newPartner } from './helpers';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** `npm run smoke`, as an operator runs it: keys in the environment, the stack found by PORT and LOCAL_STATE_DIR. */
function smoke(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/smoke.ts', ...args],
      { cwd: ROOT, env: { ...process.env, PORT: String(inject('port')), LOCAL_STATE_DIR: inject('stateDir'), ...env }, timeout: 150_000 },
      (err, stdout, stderr) => done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * What a tunnel (ngrok, cloudflared) is to an operator's laptop: a public HTTPS URL forwarding to the
 * receiver's port. Here an HTTPS server on `localhost` with a certificate the stack trusts; `broken`
 * answers 502 itself, as a tunnel whose far end is down.
 */
async function tunnel(to: number | 'broken') {
  const hits: string[] = [];
  const server = createHttpsServer(inject('tls').localhost, (req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (to === 'broken') return void res.writeHead(502).end();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<
        string,
        string
      >;
      const r = await fetch(`http://127.0.0.1:${to}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) });
      res.writeHead(r.status).end(Buffer.from(await r.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `https://localhost:${(server.address() as AddressInfo).port}/smoke`, hits, close: () => server.close() };
}

const STEPS = ['health', 'me', 'catalog', 'quote', 'booking', 'webhook', 'cancel', 'settlement', 'documents', 'pay', 'live-me', 'live-signing'];
const stepsOf = (stdout: string) => stdout.split('\n').flatMap((l) => /^(ok|skip|FAIL)\s+(\S+)/.exec(l)?.slice(1, 3).join(' ') ?? []);

describe('npm run smoke against the local stack', () => {
  it('runs the journey, one ok line per step and exit 0; run again (its webhook through a tunnel), it registers nothing twice and leaves no endpoint', async () => {
    const p = await newPartner();
    const env = { PTBS_BASE_URL: baseUrl(), PTBS_SANDBOX_KEY: p.test_key, PTBS_LIVE_KEY: p.live_key };

    const first = await smoke([], env);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    // The first run registers the smoke's own sandbox payment key when the booking reports it unknown.
    expect(stepsOf(first.stdout)).toEqual(['ok health', 'ok me', 'ok catalog', 'ok quote', 'ok payment-key', ...STEPS.slice(4).map((s) => `ok ${s}`)]);
    expect(first.stdout).toMatch(/^ok {4}quote +\d+ ms {2}[0-9a-f-]{36} \d+\.\d{2} MAD for \d+/m);
    expect(first.stdout).toMatch(/^ok {4}payment-key .* smoke-\S+ registered for the sandbox \(admin CLI, the local stack\)$/m);
    expect(first.stdout).toMatch(/^ok {4}webhook .* booking\.completed test event \S+ delivered in \d+ ms, signature verified$/m);
    expect(first.stdout).toMatch(/^ok {4}live-signing .* unsigned write refused \(401 auth\.timestamp\.missing\), signed write accepted/m);
    expect(first.stdout).toMatch(/^smoke passed \(13 ok, 0 skipped\) in [\d.]+ s against http:\/\/127\.0\.0\.1:\d+\/v1$/m);
    for (const key of [p.test_key, p.live_key]) expect(first.stdout + first.stderr).not.toContain(key.split('_')[3]);

    const rx = await freePort();
    const t = await tunnel(rx);
    try {
      const second = await smoke(['--receiver-url', t.url, '--receiver-port', String(rx)], env);
      expect(second.code, second.stdout + second.stderr).toBe(0);
      expect(stepsOf(second.stdout)).toEqual(STEPS.map((s) => `ok ${s}`));
      expect(t.hits).toEqual(['POST /smoke']);
    } finally {
      t.close();
    }

    // What the two runs leave: their bookings cancelled, their settlements paid, no endpoint.
    const key = p.test_key;
    expect((await api('GET', '/webhooks', { key })).body.data).toEqual([]);
    const bookings = (await api('GET', '/bookings?limit=10', { key })).body.data;
    expect(bookings.map((b: { status: string; partner_reference: string }) => [b.status, b.partner_reference.startsWith('SMOKE-')])).toEqual([
      ['CANCELLED', true],
      ['CANCELLED', true],
    ]);
    const settlements = (await api('GET', '/settlements', { key })).body.data;
    expect(settlements.map((s: { status: string }) => s.status)).toEqual(['PAID', 'PAID']);
  }, 240_000);

  it('exits 1 at the first failing step with its code, message and request id, and prints no key', async () => {
    const wrong = `sk_test_abcdefabcdef_${'W'.repeat(32)}`;
    const r = await smoke(['--base-url', baseUrl()], { PTBS_SANDBOX_KEY: wrong });
    expect(r.code).toBe(1);
    expect(stepsOf(r.stdout)).toEqual(['ok health', 'FAIL me']);
    expect(r.stdout).toMatch(/^FAIL {2}me +\d+ ms {2}401 auth\.api_key\.invalid: .+ \(request [0-9a-f-]{36}\)$/m);
    expect(r.stdout).toMatch(/^smoke FAILED at me \(1 ok, 0 skipped\)/m);
    expect(r.stdout + r.stderr).not.toContain('W'.repeat(32));

    const usage = await smoke(['--base-url', baseUrl()], { PTBS_SANDBOX_KEY: `sk_live_abcdefabcdef_${'L'.repeat(32)}` });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/the sandbox key is an sk_test_ key/);
    expect(usage.stdout + usage.stderr).not.toContain('L'.repeat(32));

    // Without a base URL and key it acts on the local stack of npm start: none runs on that state directory.
    const none = await smoke([], { LOCAL_STATE_DIR: mkdtempSync(join(tmpdir(), 'ptbs-none-')) });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no local stack is running[\s\S]*or give --base-url and PTBS_SANDBOX_KEY/);
  });

  it('after a failed step still deletes its webhook endpoint and cancels its booking', async () => {
    const p = await newPartner();
    const t = await tunnel('broken');
    try {
      const r = await smoke(['--receiver-url', t.url, '--receiver-port', String(await freePort())], { PTBS_BASE_URL: baseUrl(), PTBS_SANDBOX_KEY: p.test_key });
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(stepsOf(r.stdout)).toEqual([
        'ok health',
        'ok me',
        'ok catalog',
        'ok quote',
        'ok payment-key',
        'ok booking',
        'FAIL webhook',
        'ok cleanup',
        'ok cleanup',
      ]);
      expect(r.stdout).toMatch(/^FAIL {2}webhook .* was not delivered: .*502/m);
      expect(r.stdout).toMatch(/^ok {4}cleanup .* webhook endpoint \S+ deleted$/m);
      expect(r.stdout).toMatch(/^ok {4}cleanup .* booking PTB-\S+ CANCELLED$/m);
      expect(r.stdout).toMatch(/^smoke FAILED at webhook \(6 ok, 0 skipped\)/m);
    } finally {
      t.close();
    }
    expect((await api('GET', '/webhooks', { key: p.test_key })).body.data).toEqual([]);
    expect((await api('GET', '/bookings', { key: p.test_key })).body.data.map((b: { status: string }) => b.status)).toEqual(['CANCELLED']);
  }, 120_000);
});
