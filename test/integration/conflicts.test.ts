import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionLogFile } from '../../infra/local/logs';
import { addDays, localDate } from '../../shared/kernel/time';
import { bookingBody, paidClaims, signPayment } from './booking-helpers';
import { BOOT_HOOK_MS, OwnStack } from './own-stack';

/**
 * The conflict-faithful mode (DYNAMO_CONFLICTS=aws, shared/db/conflicts.ts):
 * a stack of its own, started with the mode on and a round-trip delay, where
 * two transactions in flight on one item cancel each other as in AWS. The
 * functions log each conflict (`transaction_conflict`) and each booking retry
 * (`booking_retry`) in the stack's function log, read here.
 */
let stack: OwnStack;

beforeAll(async () => {
  stack = await OwnStack.start('conflicts', { DYNAMO_CONFLICTS: 'aws', DYNAMO_LATENCY_MS: '5', POWERTOOLS_LOG_LEVEL: 'INFO', LOCAL_CATALOG_ADVENTURES: '0' });
}, BOOT_HOOK_MS);

afterAll(() => stack?.stop(), 30_000);

const call = (method: string, path: string, key: string, body?: unknown) => stack.call(method, path, key, body);
const partner = () => stack.sandboxPartner('Conflict Bank');

type Partner = Awaited<ReturnType<OwnStack['sandboxPartner']>>;
let sentBodies: unknown[] = [];
let sentKeys: string[] = [];

/** Quotes and signs `dates.length` bookings, then sends them all at once (with `keys` as their Idempotency-Keys); returns their answers. */
async function bookAtOnce(p: Partner, dates: string[], keys = dates.map(() => randomUUID())) {
  const bodies = await Promise.all(
    dates.map(async (date) => {
      const q = await call('POST', '/quotes', p.key, { rate_pack_id: p.pack.id, start_date: date, start_time: null, travelers: [{ age: 30 }] });
      expect(q.status, JSON.stringify(q.body)).toBe(201);
      return bookingBody(q.body, await signPayment(p.jwk, paidClaims(q.body)));
    }),
  );
  sentBodies = bodies;
  sentKeys = keys;
  return Promise.all(bodies.map((b, i) => stack.call('POST', '/bookings', p.key, b, keys[i])));
}

/** The `i`th booking of the last burst again, with its Idempotency-Key. */
const resend = (p: Partner, i: number) => stack.call('POST', '/bookings', p.key, sentBodies[i], sentKeys[i]);

/** What the functions logged since `from` (bytes into the log file): conflicts and booking retries. */
function logged(from: number) {
  const file = functionLogFile(stack.stateDir, stack.port);
  const text = existsSync(file) ? readFileSync(file, 'utf8').slice(from) : '';
  return {
    conflicts: text.split('\n').filter((l) => l.includes('"transaction_conflict":true')).length,
    retries: text.split('\n').filter((l) => l.includes('"booking_retry":true')).length,
    errors: text
      .split('\n')
      .filter((l) => l.includes('"level":"ERROR"'))
      .slice(0, 5),
    end: from + text.length,
  };
}
const logSize = () => {
  const file = functionLogFile(stack.stateDir, stack.port);
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
    const date = addDays(localDate(new Date()), 5);
    let answers = await bookAtOnce(p, Array(40).fill(date));
    const statuses = () => answers.map((a) => `${a.status} ${a.body.code ?? ''}`);
    // A 5xx names its cause: the functions' error lines since the burst.
    expect(
      statuses().filter((s) => s.startsWith('5')),
      logged(from).errors.join('\n'),
    ).toEqual([]);
    // 409 booking.slot.contended (retries bounded by count and by the invocation's deadline) is retried as it says:
    // after Retry-After, with the same Idempotency-Key, until every booking has its final answer.
    for (let round = 0; round < 10 && statuses().some((s) => s === '409 booking.slot.contended'); round++) {
      await new Promise((r) => setTimeout(r, 1000));
      answers = await Promise.all(answers.map((a, i) => (a.status === 409 && a.body.code === 'booking.slot.contended' ? resend(p, i) : a)));
    }
    expect(
      statuses().filter((s) => s.startsWith('5')),
      logged(from).errors.join('\n'),
    ).toEqual([]);
    expect(statuses().filter((s) => s === '201 ')).toHaveLength(seats);
    expect(
      statuses()
        .filter((s) => s !== '201 ')
        .every((s) => s === '422 booking.slot.unavailable'),
    ).toBe(true);
    const { conflicts, retries } = logged(from);
    // Only the slot's seats are contended: every retry follows a conflict.
    expect(conflicts).toBeGreaterThan(0);
    expect(retries).toBeLessThanOrEqual(conflicts);
  }, 120_000);
});
