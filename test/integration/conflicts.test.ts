import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionLogFile } from '../../infra/local/logs';
import { freePort } from '../../infra/local/services';
import { addDays, localDate } from '../../shared/kernel/time';
import { bookingBody, paidClaims, signPayment } from './booking-helpers';

/**
 * The conflict-faithful mode (DYNAMO_CONFLICTS=aws, shared/db/conflicts.ts):
 * a stack of its own, started with the mode on and a round-trip delay, where
 * two transactions in flight on one item cancel each other as in AWS. The
 * functions log each conflict (`transaction_conflict`) and each booking retry
 * (`booking_retry`) in the stack's function log, read here.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);
let child: ChildProcess | undefined;
let port = 0;
let stateDir = '';
let base = '';

beforeAll(async () => {
  port = await freePort();
  stateDir = mkdtempSync(join(tmpdir(), 'ptbs-conflicts-'));
  child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', '--reset'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      LOCAL_STATE_DIR: stateDir,
      DYNAMO_CONFLICTS: 'aws',
      DYNAMO_LATENCY_MS: '5',
      WEBHOOK_WAIT_SCALE: '0.0001',
      POWERTOOLS_LOG_LEVEL: 'INFO',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((ready, reject) => {
    const timer = setTimeout(() => reject(new Error(`conflict-mode stack not ready in 150 s:\n${out}`)), 150_000);
    child!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ready in')) {
        clearTimeout(timer);
        ready();
      }
    });
    child!.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child!.once('exit', (code) => reject(new Error(`conflict-mode stack exited with ${code}:\n${out}`)));
  });
  base = `http://127.0.0.1:${port}/v1`;
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 30_000);

async function admin(args: string[]) {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LOCAL_STATE_DIR: stateDir },
  });
  return JSON.parse(stdout);
}

async function call(method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': randomUUID() }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A sandbox partner with a payment key, and a FLEXIBLE pack of its catalog for single adult travelers. */
async function partner() {
  const p = await admin(['partner:create', '--name', `Conflict Bank ${randomUUID().slice(0, 6)}`]);
  const jwk = (await admin(['payment-key:generate', '--partner', p.partner_id, '--env', 'test'])).private_jwk as JWK;
  const listing = await call('GET', '/adventures?limit=100', p.test_key);
  expect(listing.status, JSON.stringify(listing.body)).toBe(200);
  const list = listing.body.data as { slug: string; bookable: boolean }[];
  for (const a of list.filter((x) => x.bookable)) {
    const pack = (await call('GET', `/adventures/${a.slug}`, p.test_key)).body.rate_packs.find(
      (rp: any) => rp.booking_mode === 'FLEXIBLE' && rp.min_travelers === 1 && rp.schedule.weekdays.length === 7 && rp.booking_window_days > 45,
    );
    if (pack) return { key: p.test_key as string, jwk, pack: pack as { id: string; schedule: { daily_capacity: number } } };
  }
  throw new Error('no FLEXIBLE pack for single travelers in the sandbox catalog');
}

/** Quotes and signs `dates.length` bookings, then sends them all at once; returns their answers. */
async function bookAtOnce(p: Awaited<ReturnType<typeof partner>>, dates: string[]) {
  const bodies = await Promise.all(
    dates.map(async (date) => {
      const q = await call('POST', '/quotes', p.key, { rate_pack_id: p.pack.id, start_date: date, start_time: null, travelers: [{ age: 30 }] });
      expect(q.status, JSON.stringify(q.body)).toBe(201);
      return bookingBody(q.body, await signPayment(p.jwk, paidClaims(q.body)));
    }),
  );
  return Promise.all(bodies.map((b) => call('POST', '/bookings', p.key, b)));
}

/** What the functions logged since `from` (bytes into the log file): conflicts and booking retries. */
function logged(from: number) {
  const file = functionLogFile(stateDir, port);
  const text = existsSync(file) ? readFileSync(file, 'utf8').slice(from) : '';
  return {
    conflicts: text.split('\n').filter((l) => l.includes('"transaction_conflict":true')).length,
    retries: text.split('\n').filter((l) => l.includes('"booking_retry":true')).length,
    end: from + text.length,
  };
}
const logSize = () => {
  const file = functionLogFile(stateDir, port);
  return existsSync(file) ? readFileSync(file, 'utf8').length : 0;
};

describe('bookings under the conflict-faithful mode', () => {
  it('40 bookings of one partner over 40 slots at once: all confirmed, 0 conflicts, 0 retries', async () => {
    const p = await partner();
    const today = localDate(new Date());
    // The month's DRAFT exists before the burst (its creation is a single conditional write, never a transaction).
    const first = await bookAtOnce(p, [addDays(today, 41)]);
    expect(first[0]!.status, JSON.stringify(first[0]!.body)).toBe(201);
    const from = logSize();
    const answers = await bookAtOnce(
      p,
      Array.from({ length: 40 }, (_, i) => addDays(today, 1 + i)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(201));
    expect(logged(from)).toMatchObject({ conflicts: 0, retries: 0 });
    // One settlement holds them all, summed from their lines.
    const [draft] = (await call('GET', '/settlements', p.key)).body.data;
    expect(draft).toMatchObject({ status: 'DRAFT', booking_count: 41, line_count: 41 });
  }, 120_000);

  it('40 bookings on one slot at once: it sells out exactly, the losers are refused, no 5xx, bounded retries', async () => {
    const p = await partner();
    const seats = p.pack.schedule.daily_capacity;
    expect(seats).toBeLessThan(40);
    const from = logSize();
    const answers = await bookAtOnce(p, Array(40).fill(addDays(localDate(new Date()), 5)));
    const statuses = answers.map((a) => `${a.status} ${a.body.code ?? ''}`);
    expect(statuses.filter((s) => s.startsWith('5'))).toEqual([]);
    expect(statuses.filter((s) => s === '201 ')).toHaveLength(seats);
    expect(statuses.filter((s) => s !== '201 ').every((s) => s === '422 booking.slot.unavailable' || s === '409 booking.slot.contended')).toBe(true);
    const { conflicts, retries } = logged(from);
    // Only the slot's seats are contended: every retry follows a conflict, and none goes past the bound of one request.
    expect(conflicts).toBeGreaterThan(0);
    expect(retries).toBeLessThanOrEqual(conflicts);
    expect(retries).toBeLessThan(40 * 26);
  }, 120_000);
});
