import { execFile, spawnSync } from 'node:child_process';
import { createPrivateKey, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { JWK } from 'jose';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { recipesPython } from '../../scripts/recipes-python';
import { addDays, localDate } from '../../shared/kernel/time';
import { signParts } from '../../shared/platform/signature';
import { bookingBody, livePaymentKey, packs, quoteFor } from './booking-helpers';
import { api, baseUrl, newPartner } from './helpers';

// The integration recipes of recipes/ (Java, Python, curl+openssl), run as a bank engineer runs them, against the test stack.
const ROOT = resolve(import.meta.dirname, '..', '..');
/** RECIPES_PYTHON (e.g. /usr/bin/python3, Debian's, cryptography 38), else the python3 that imports cryptography. */
const PYTHON = recipesPython();

type Lang = 'java' | 'python' | 'curl';
const RECIPES: Record<Lang, Record<'sign' | 'confirm' | 'verify', [string, string]>> = {
  java: {
    sign: ['java', 'recipes/java/SignRequest.java'],
    confirm: ['java', 'recipes/java/ConfirmPayment.java'],
    verify: ['java', 'recipes/java/VerifyWebhook.java'],
  },
  python: {
    sign: [PYTHON, 'recipes/python/sign_request.py'],
    confirm: [PYTHON, 'recipes/python/confirm_payment.py'],
    verify: [PYTHON, 'recipes/python/verify_webhook.py'],
  },
  curl: {
    sign: ['bash', 'recipes/curl/sign-request.sh'],
    confirm: ['bash', 'recipes/curl/confirm-payment.sh'],
    verify: ['bash', 'recipes/curl/verify-webhook.sh'],
  },
};

/** What each language's recipes need on this machine, and the package that brings it; undefined when all is there. */
function missingTool(lang: Lang): string | undefined {
  const ok = (cmd: string, args: string[], out?: RegExp) => {
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    return !r.error && r.status === 0 && (!out || out.test(`${r.stdout}${r.stderr}`));
  };
  if (lang === 'java' && !ok('java', ['--list-modules'], /^jdk\.compiler@/m))
    return 'the Java recipes need java 17+ with the jdk.compiler module (the source launcher): apt-get install openjdk-17-jdk-headless';
  if (lang === 'python' && !ok(PYTHON, ['-c', 'import cryptography']))
    return `the Python recipes need ${PYTHON} with the cryptography package: apt-get install python3-cryptography (or pip install cryptography; RECIPES_PYTHON names another python)`;
  if (!ok('openssl', ['version']) || !ok('curl', ['--version'])) return 'the curl recipes need curl and openssl: apt-get install curl openssl';
  return undefined;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
function recipe(lang: Lang, which: 'sign' | 'confirm' | 'verify', args: string[], env: Record<string, string>): Promise<Run> {
  const [cmd, file] = RECIPES[lang][which];
  // A short-lived JVM: the client compiler and the serial collector start it in about half the CPU time.
  const jvm = lang === 'java' ? { JDK_JAVA_OPTIONS: '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC' } : {};
  return new Promise((done) => {
    execFile(cmd, [file, ...args], { cwd: ROOT, env: { ...process.env, ...jvm, ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}
/** A write recipe prints the HTTP status, then the answer's body. */
const answer = (r: Run) => {
  const [status, ...rest] = r.stdout.trimEnd().split('\n');
  return { status: Number(status), body: JSON.parse(rest.join('\n')) };
};

// The bank's receiver, registered by host name: keeps each delivery's exact bytes and headers.
const deliveries: { path: string; raw: Buffer; headers: IncomingHttpHeaders }[] = [];
let server: Server;
let receiver: string;
let tmp: string;
// One partner, one live payment key and the catalog for the three languages: the admin CLI costs seconds a call.
let p: Awaited<ReturnType<typeof newPartner>>;
let paymentJwk: JWK;
let pack: Awaited<ReturnType<typeof packs>>['FLEXIBLE'];
beforeAll(async () => {
  const catalog = packs(inject('demoTestKey'));
  p = await newPartner();
  [paymentJwk, pack] = await Promise.all([livePaymentKey(p.partner_id), catalog.then((c) => c.FLEXIBLE)]);
}, 90_000);
beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ path: req.url ?? '/', raw: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiver = `http://localhost:${(server.address() as AddressInfo).port}`;
  tmp = mkdtempSync(join(tmpdir(), 'recipes-'));
});
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await new Promise<void>((r) => server.close(() => r()));
});

/** The booking.confirmed delivery of one booking to one endpoint (each endpoint gets the three languages' bookings). */
async function delivered(path: string, bookingNumber: string) {
  const end = Date.now() + 30_000;
  const find = () => deliveries.find((d) => d.path === path && JSON.parse(d.raw.toString('utf8')).data.booking_number === bookingNumber);
  while (!find() && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  const d = find();
  if (!d) throw new Error(`no delivery of ${bookingNumber} at ${path} within 30 s`);
  return d;
}

/** The payment key as each recipe is shown it: the admin CLI's JSON, a bare JWK, a PKCS#8 PEM with PAYMENT_KID. */
function paymentKeyFile(lang: Lang, jwk: JWK): Record<string, string> {
  const file = join(tmp, `${lang}-payment-key`);
  if (lang === 'python') {
    writeFileSync(file, createPrivateKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' }).export({ type: 'pkcs8', format: 'pem' }));
    return { PAYMENT_KEY: file, PAYMENT_KID: jwk.kid! };
  }
  writeFileSync(file, JSON.stringify(lang === 'curl' ? { kid: jwk.kid, private_jwk: jwk } : jwk));
  return { PAYMENT_KEY: file };
}

describe.concurrent('integration recipes (recipes/), against the local stack', () => {
  // A JVM start costs about a second a run, and more when the three languages run at once on two cores.
  it.each(['java', 'python', 'curl'] as const)(
    '%s: signs a live write, confirms a payment, verifies a real webhook delivery',
    { timeout: 90_000 },
    async (lang) => {
      const missing = missingTool(lang);
      if (missing) throw new Error(missing);
      const env = { BASE_URL: baseUrl(), API_KEY: p.live_key };
      const path = `/${lang}/${randomUUID()}`;

      // 1. A signed live write: the receiver's endpoint, registered by the recipe with the live key.
      const endpointBody = JSON.stringify({ url: `${receiver}${path}`, event_types: ['booking.confirmed'] });
      const other = JSON.stringify({ url: `${receiver}/${lang}/other`, event_types: ['booking.confirmed'] });
      const twin = JSON.stringify({ url: `${receiver}/${lang}/twin`, event_types: ['settlement.issued'] });
      const now = String(Math.floor(Date.now() / 1000));
      const example = { ...env, API_KEY: 'sk_live_example00000_S3cr3tS3cr3tS3cr3tS3cr3tS3cr3tAB', SIGN_ONLY: '1', TIMESTAMP: '1795251000' };
      const examplePath = '/team/members/7c0e9c1e-2f57-4d0b-9a43-1f5b8f1f6a11/role';
      const [created, signedOnly, workedExample, workedExampleV2, ...twins] = await Promise.all([
        recipe(lang, 'sign', ['POST', '/webhooks', endpointBody], env),
        recipe(lang, 'sign', ['post', '/webhooks', other], { ...env, SIGN_ONLY: '1' }),
        // The worked examples of docs/guides/authentication.md (Signing live writes), to the digit.
        recipe(lang, 'sign', ['PATCH', examplePath, '{"role":"FINANCE"}'], { ...example, SIGNATURE_VERSION: '1' }),
        recipe(lang, 'sign', ['PATCH', examplePath, '{"role":"FINANCE"}'], { ...example, IDEMPOTENCY_KEY: '5f0c3a52-1c1e-4d8e-9a8e-8d3c2b1a0f00' }),
        // Two app servers send the same live write at the same second: version 2 signs their keys apart, both succeed.
        recipe(lang, 'sign', ['POST', '/webhooks', twin], { ...env, TIMESTAMP: now }),
        recipe(lang, 'sign', ['POST', '/webhooks', twin], { ...env, TIMESTAMP: now }),
      ]);
      expect(workedExample.stdout.trim(), workedExample.stderr).toBe(
        'X-Timestamp: 1795251000\nX-Signature: 37f4004be0b5ed6b3bbc5a8dc8a3ef35fefff91d558fb6fbc896bdd450aa088b',
      );
      expect(workedExampleV2.stdout.trim(), workedExampleV2.stderr).toBe(
        'X-Signature-Version: 2\nIdempotency-Key: 5f0c3a52-1c1e-4d8e-9a8e-8d3c2b1a0f00\nX-Timestamp: 1795251000\nX-Signature: bec9edcf91980ea1f46b2f0ea601fe95ad2add9398d6a681f3bfc9296a2c7ad5',
      );
      expect(created.code, created.stderr + created.stdout).toBe(0);
      const endpoint = answer(created);
      expect(endpoint.status).toBe(201);
      expect(endpoint.body.signing_secret).toMatch(/^whsec_/);
      for (const t of twins) expect(t.code, t.stderr + t.stdout).toBe(0);
      const [a, b] = twins.map(answer);
      expect([a!.status, b!.status]).toEqual([201, 201]);
      expect(a!.body.id).not.toBe(b!.body.id);

      // The same signature as the service's own code, and a tampered body or Idempotency-Key under it is refused with the spec's error.
      const [, key, ts, sig] =
        /^X-Signature-Version: 2\nIdempotency-Key: (\S+)\nX-Timestamp: (\d+)\nX-Signature: ([0-9a-f]{64})$/.exec(signedOnly.stdout.trim()) ?? [];
      expect(sig, signedOnly.stderr + signedOnly.stdout).toBe(
        signParts(p.live_key.split('_')[3]!, { version: '2', timestamp: ts!, method: 'POST', pathWithQuery: '/v1/webhooks', idempotencyKey: key }, other),
      );
      const signedHeaders = {
        'content-type': 'application/json',
        'idempotency-key': key!,
        'x-timestamp': ts!,
        'x-signature': sig!,
        'x-signature-version': '2',
      };
      const [tampered, otherKey] = await Promise.all([
        api('POST', '/webhooks', { key: p.live_key, rawBody: other.replace('other', 'elsewhere'), headers: signedHeaders }),
        api('POST', '/webhooks', { key: p.live_key, rawBody: other, headers: { ...signedHeaders, 'idempotency-key': randomUUID() } }),
      ]);
      expect([tampered.status, tampered.body.code]).toEqual([401, 'auth.signature.invalid']);
      expect([otherKey.status, otherKey.body.code]).toEqual([401, 'auth.signature.invalid']);

      // 2. A live booking confirmed with the recipe's JWS, over a live payment key the bank registered.
      const quote = await quoteFor(p.live_key, pack, addDays(localDate(new Date()), 9));
      const { payment_confirmation: _, ...booking } = bookingBody(quote, '');
      const bookingFile = join(tmp, `${lang}-booking.json`);
      writeFileSync(bookingFile, JSON.stringify(booking));
      const keyEnv = paymentKeyFile(lang, paymentJwk);
      const confirmed = await recipe(lang, 'confirm', [quote.id, quote.net_amount.amount, `PAY-${lang}-1`, bookingFile], { ...env, ...keyEnv });
      expect(confirmed.code, confirmed.stderr + confirmed.stdout).toBe(0);
      const made = answer(confirmed);
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({ status: 'CONFIRMED', quote_id: quote.id, partner_reference: booking.partner_reference });
      expect((await api('GET', `/bookings/${made.body.booking_number}`, { key: p.live_key })).body.status).toBe('CONFIRMED');

      // 3. Its booking.confirmed delivery verifies with the recipe; a tampered body or header does not.
      const d = await delivered(path, made.body.booking_number);
      const files = (name: string, raw: Buffer, headers: IncomingHttpHeaders) => {
        const body = join(tmp, `${lang}-${name}.json`);
        const head = join(tmp, `${lang}-${name}.txt`);
        writeFileSync(body, raw);
        writeFileSync(
          head,
          Object.entries(headers)
            .map(([k, v]) => `${k}: ${v}\n`)
            .join(''),
        );
        return [body, head];
      };
      const flip = (hex: string) => (hex[0] === 'a' ? 'b' : 'a') + hex.slice(1);
      const wenv = { WEBHOOK_SECRET: endpoint.body.signing_secret as string };
      // A delivery 301 s old, re-signed for Standard Webhooks with the endpoint's secret: only the tolerance refuses it.
      const oldStamp = Math.floor(Date.now() / 1000) - 301;
      const stale = {
        ...d.headers,
        'webhook-timestamp': String(oldStamp),
        'webhook-signature': new StandardWebhook(wenv.WEBHOOK_SECRET).sign(
          d.headers['webhook-id'] as string,
          new Date(oldStamp * 1000),
          d.raw.toString('utf8'),
        ),
      };
      const [ok, body, xsig, stamp, late] = await Promise.all([
        recipe(lang, 'verify', files('ok', d.raw, d.headers), wenv),
        recipe(lang, 'verify', files('body', Buffer.from(d.raw.toString('utf8').replace('CONFIRMED', 'CANCELLED')), d.headers), wenv),
        recipe(lang, 'verify', files('xsig', d.raw, { ...d.headers, 'x-service-signature': flip(d.headers['x-service-signature'] as string) }), wenv),
        // X-Service-Signature still matches: only the Standard Webhooks check (the signature covers the timestamp) refuses it.
        recipe(lang, 'verify', files('stamp', d.raw, { ...d.headers, 'webhook-timestamp': String(Number(d.headers['webhook-timestamp']) - 1) }), wenv),
        recipe(lang, 'verify', files('late', d.raw, stale), wenv),
      ]);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout.trim()).toBe(`verified ${d.headers['webhook-id']}`);
      expect([body.code, body.stderr]).toEqual([1, expect.stringContaining('X-Service-Signature')]);
      expect([xsig.code, xsig.stderr]).toEqual([1, expect.stringContaining('X-Service-Signature')]);
      expect([stamp.code, stamp.stderr]).toEqual([1, expect.stringContaining('webhook-signature')]);
      expect([late.code, late.stderr]).toEqual([1, expect.stringContaining('webhook-timestamp is outside the tolerance')]);
    },
  );
});
