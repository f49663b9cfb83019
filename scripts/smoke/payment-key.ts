import { execFile } from 'node:child_process';
import { createECDH, hkdfSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { SmokeOptions } from './options';

const ROOT = resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/**
 * The admin CLI, as an operator runs it: against the local stack on the base URL's port, or
 * (for any other base URL) against the deployed stack with the operator's AWS credentials
 * (ADMIN_TARGET=aws, STACK_NAME), unless ADMIN_TARGET says otherwise.
 */
export async function admin(args: string[], o?: Pick<SmokeOptions, 'baseUrl' | 'local'>): Promise<Record<string, unknown>> {
  const env = { ...process.env };
  if (o && !env.ADMIN_TARGET) {
    if (o.local) env.PORT = new URL(o.baseUrl).port || '80';
    else env.ADMIN_TARGET = 'aws';
  }
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args, '--json'], { cwd: ROOT, env, timeout: 120_000 });
    return JSON.parse(stdout) as Record<string, unknown>;
  } catch (e) {
    const stderr = String((e as { stderr?: string }).stderr ?? '').trim();
    let said = stderr || (e as Error).message;
    try {
      said = (JSON.parse(stderr) as { error: { message: string } }).error.message;
    } catch {
      // Not the CLI's JSON error: keep its text.
    }
    throw new Error(`admin ${args[0]}: ${said}`);
  }
}

const b64url = (b: Buffer) => b.toString('base64url');

/**
 * The smoke's own sandbox payment key, derived from the sandbox API key: the same on every run
 * and every machine for that key, so it is registered once and no run adds another. It signs
 * sandbox payment confirmations only, for whoever already holds the sandbox key.
 */
export async function derivedPaymentKey(sandboxKey: string): Promise<JWK> {
  for (let i = 0; ; i++) {
    const d = Buffer.from(hkdfSync('sha256', sandboxKey, 'ptbs-smoke', `sandbox payment key ${i}`, 32));
    const ecdh = createECDH('prime256v1');
    try {
      ecdh.setPrivateKey(d);
    } catch {
      continue; // outside the curve's order (about one chance in 2^32): the next candidate
    }
    const point = ecdh.getPublicKey();
    const pub = { kty: 'EC', crv: 'P-256', x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33)) };
    return { ...pub, d: b64url(d), kid: `smoke-${(await calculateJwkThumbprint(pub)).slice(0, 16)}`, alg: 'ES256' };
  }
}

/** A private JWK from a file: the JWK itself, or the admin CLI's payment-key:generate --json output. */
export function paymentKeyFromFile(file: string): JWK {
  const json = JSON.parse(readFileSync(file, 'utf8')) as JWK & { private_jwk?: JWK };
  const jwk = json.private_jwk ?? json;
  if (jwk.kty !== 'EC' || !jwk.d || !jwk.kid) throw new Error(`${file}: not a private EC JWK with a kid`);
  return jwk;
}

/** Registers the public half for the partner's sandbox (idempotent: the same key again changes nothing). */
export async function registerPaymentKey(o: Pick<SmokeOptions, 'baseUrl' | 'local'>, partnerId: string, jwk: JWK): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'ptbs-smoke-'));
  try {
    const file = join(dir, 'public.json');
    writeFileSync(file, JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid: jwk.kid }));
    const r = await admin(['payment-key:register', '--partner', partnerId, '--env', 'test', '--jwk', file], o);
    const where =
      (process.env.ADMIN_TARGET ?? (o.local ? 'local' : 'aws')) === 'aws' ? `stack ${process.env.STACK_NAME ?? 'PartnerTravelService'}` : 'the local stack';
    return `${jwk.kid} ${r.created ? 'registered' : 'was already registered'} for the sandbox (admin CLI, ${where})`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
