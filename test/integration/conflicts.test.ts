import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionLogFile } from '../../infra/local/logs';
import { readRuntime } from '../../infra/local/runtime-info';
import { addDays, localDate } from '../../shared/kernel/time';
import { webhookKeys } from '../../shared/webhooks/keys';
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
    // A 5xx names its cause: the functions' error lines since the burst.
    expect(
      answers.map((a) => a.status),
      logged(from).errors.join('\n'),
    ).toEqual(Array(40).fill(201));
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

describe('webhook deliveries under the conflict-faithful mode', () => {
  it('20 deliveries to one endpoint fail and then succeed at once: its count of PENDING deliveries ends exact (0), its shards seldom meet, every conflict retried', async () => {
    const p = await partner();
    // Each event's first attempt fails (500), its retry succeeds: 20 outcomes settle the endpoint's one count at once.
    const seen = new Map<string, number>();
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const event = String(req.headers['x-service-event-id']);
        seen.set(event, (seen.get(event) ?? 0) + 1);
        res.writeHead(seen.get(event) === 1 ? 500 : 200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://localhost:${(receiver.address() as AddressInfo).port}/hook`;
      const e = await call('POST', '/webhooks', p.key, { url, event_types: ['booking.confirmed'] });
      expect(e.status, JSON.stringify(e.body)).toBe(201);
      const from = logSize();
      const today = localDate(new Date());
      const answers = await bookAtOnce(
        p,
        Array.from({ length: 20 }, (_, i) => addDays(today, 1 + i)),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
      const delivered = async () => (await call('GET', `/webhooks/deliveries?endpoint_id=${e.body.id}&status=DELIVERED&limit=100`, p.key)).body.data.length;
      const end = Date.now() + 90_000;
      while ((await delivered()) < 20 && Date.now() < end) await new Promise((r) => setTimeout(r, 250));
      expect(await delivered()).toBe(20);
      const runtime = readRuntime(stack.stateDir, stack.port)!;
      const ddb = DynamoDBDocumentClient.from(
        new DynamoDBClient({
          region: 'us-east-1',
          endpoint: runtime.env.AWS_ENDPOINT_URL_DYNAMODB,
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
      );
      // The marker and the shards: their sum is 0, and the marker says it is exact.
      const items =
        (
          await ddb.send(
            new QueryCommand({
              TableName: runtime.env.DATA_TABLE!,
              KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
              ExpressionAttributeValues: {
                ':p': webhookKeys.endpointsPartition(p.partnerId, 'test'),
                ':s': webhookKeys.pendingCount(p.partnerId, 'test', e.body.id).sk,
              },
              ConsistentRead: true,
            }),
          )
        ).Items ?? [];
      expect(items.reduce((n, i) => n + Number(i.pending ?? 0), 0)).toBe(0);
      expect(items.some((i) => i.exact === true)).toBe(true);
      const listed = await call('GET', '/webhooks', p.key);
      expect(listed.body.data).toMatchObject([{ id: e.body.id, pending_deliveries: 0 }]);
      expect(logged(from).errors).toEqual([]);
      // The count is 16 shards, each transaction changing one at random: its changes seldom meet (13 conflicts logged
      // at a load of 20 on 2 cores; 165 when the count was one item, all of the burst's transactions meeting on it).
      expect(logged(from).conflicts).toBeLessThanOrEqual(40);
    } finally {
      receiver.closeAllConnections();
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  }, 180_000);
});
