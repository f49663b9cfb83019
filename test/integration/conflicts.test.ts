import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionLogFile } from '../../infra/local/logs';
import { addDays, localDate } from '../../shared/kernel/time';
import { bookingBody, paidClaims, signPayment } from './booking-helpers';
import { OwnStack } from './own-stack';

/**
 * The conflict-faithful mode (DYNAMO_CONFLICTS=aws, shared/db/conflicts.ts):
 * a stack of its own, started with the mode on and a round-trip delay, where
 * two transactions in flight on one item cancel each other as in AWS. The
 * functions log each conflict (`transaction_conflict`) and each booking retry
 * (`booking_retry`) in the stack's function log, read here.
 */
let stack: OwnStack;

beforeAll(async () => {
  stack = await OwnStack.start('conflicts', { DYNAMO_CONFLICTS: 'aws', DYNAMO_LATENCY_MS: '5', POWERTOOLS_LOG_LEVEL: 'INFO' });
}, 180_000);

afterAll(() => stack?.stop(), 30_000);

const call = (method: string, path: string, key: string, body?: unknown) => stack.call(method, path, key, body);
const partner = () => stack.sandboxPartner('Conflict Bank');

/** Quotes and signs `dates.length` bookings, then sends them all at once; returns their answers. */
async function bookAtOnce(p: Awaited<ReturnType<OwnStack['sandboxPartner']>>, dates: string[]) {
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
  const file = functionLogFile(stack.stateDir, stack.port);
  const text = existsSync(file) ? readFileSync(file, 'utf8').slice(from) : '';
  return {
    conflicts: text.split('\n').filter((l) => l.includes('"transaction_conflict":true')).length,
    retries: text.split('\n').filter((l) => l.includes('"booking_retry":true')).length,
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
