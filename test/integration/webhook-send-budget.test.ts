import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, onTestFinished } from 'vitest';
import { webhookKeys } from '../../shared/webhooks/keys';
import { MANUAL_SENDS_PER_MINUTE } from '../../shared/webhooks/model';
import { type ApiResponse, admin, newPartner, startEventReceiver, testDb, write } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * At most this many requests in flight: the local stack runs every invocation in one process, where 80 at once
 * on a loaded 2-core machine outlast the function's 10 s timeout; in AWS each has an instance of its own.
 */
const IN_FLIGHT = 16;

/** `fn` over `items`, `n` at a time, each next one sent as soon as one answers; the answers in the items' order. */
async function inParallel<T, R>(items: T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: n }, worker));
  return out;
}

/** Waits for a one-minute window with `seconds` left at least, so that a burst falls in one window of the budget. */
async function windowWithRoom(seconds: number) {
  const left = 60 - ((Date.now() / 1000) % 60);
  if (left < seconds) await sleep(left * 1000 + 100);
}

/** The budget's counters in the data table, one per window: of an endpoint, or (null) of the sandbox as a whole. */
async function counters(partnerId: string, endpointId: string | null): Promise<number[]> {
  const { ddb, dataTable } = testDb();
  const r = await ddb.send(
    new QueryCommand({
      TableName: dataTable,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': webhookKeys.sendBudget(partnerId, 'test', endpointId, 0).pk },
      ConsistentRead: true,
    }),
  );
  return (r.Items ?? []).map((i) => Number(i.count));
}

async function endpoint(key: string, url: string): Promise<string> {
  const r = await write('POST', '/webhooks', key, { url, event_types: ['booking.confirmed'] });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}

/** A refusal of the budget: 429 in the error shape, Retry-After the seconds left in the minute, as details say. */
function expectRefused(r: ApiResponse, scope: 'endpoint' | 'environment', endpointId: string) {
  expect(r.status, r.text).toBe(429);
  expect(r.body).toMatchObject({
    code: 'webhook.send.budget_exceeded',
    request_id: expect.any(String),
    details: { scope, endpoint_id: endpointId, limit_per_minute: MANUAL_SENDS_PER_MINUTE[scope] },
  });
  const after = Number(r.headers.get('retry-after'));
  expect(Number.isInteger(after) && after >= 1 && after <= 60, String(after)).toBe(true);
  expect(r.body.details.retry_after_seconds).toBe(after);
}

describe('the budget of manual sends (replays and test sends)', () => {
  it('a burst of 80 replays of one delivery, each with its own Idempotency-Key, sends 20 a minute; every other call meets 429 with Retry-After', async () => {
    const p = await newPartner();
    const rx = await startEventReceiver('/burst');
    onTestFinished(rx.close);
    const id = await endpoint(p.test_key, rx.url);
    await windowWithRoom(40);
    const sent = await write('POST', `/webhooks/${id}/test`, p.test_key);
    expect(sent.body, sent.text).toMatchObject({ delivered: true });

    const keys = Array.from({ length: 80 }, () => randomUUID());
    const replay = (key: string) => write('POST', `/webhooks/deliveries/${sent.body.delivery_id}/replay`, p.test_key, {}, { idempotencyKey: key });
    const answers = await inParallel(keys, IN_FLIGHT, replay);
    const accepted = answers.filter((a) => a.status === 202);
    const refused = answers.filter((a) => a.status !== 202);
    // The test send spent one of the endpoint's 20; the race never lets more through.
    expect(accepted).toHaveLength(MANUAL_SENDS_PER_MINUTE.endpoint - 1);
    for (const r of refused) expectRefused(r, 'endpoint', id);
    expect(await counters(p.partner_id, id)).toEqual([MANUAL_SENDS_PER_MINUTE.endpoint]);

    // The endpoint receives the test send and the 19 replays of its event, and nothing more.
    const eventId = sent.body.event_id as string;
    for (let i = 0; i < 200 && rx.received.length < MANUAL_SENDS_PER_MINUTE.endpoint; i++) await sleep(100);
    await sleep(1_500);
    expect(rx.received.map((e) => e.id)).toEqual(Array(MANUAL_SENDS_PER_MINUTE.endpoint).fill(eventId));

    // A refused call stored nothing under its key: it is refused again, not replayed. An accepted one is replayed and spends nothing.
    const again = await replay(keys[answers.indexOf(refused[0]!)]!);
    expectRefused(again, 'endpoint', id);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const retried = await replay(keys[answers.indexOf(accepted[0]!)]!);
    expect(retried.status).toBe(202);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    // Test sends share the budget; an operator's replay is not counted, and goes through.
    expectRefused(await write('POST', `/webhooks/${id}/test`, p.test_key), 'endpoint', id);
    const operator = await admin(['webhooks:replay', '--delivery', sent.body.delivery_id, '--json']);
    expect(operator.code, operator.stderr).toBe(0);
    expect(await counters(p.partner_id, id)).toEqual([MANUAL_SENDS_PER_MINUTE.endpoint]);
  });

  it('all the endpoints of an environment share 60 a minute: the 61st send is refused wherever it goes', async () => {
    const p = await newPartner();
    const rx = await startEventReceiver('/environment');
    onTestFinished(rx.close);
    const ids: string[] = [];
    for (const n of [0, 1, 2, 3]) ids.push(await endpoint(p.test_key, `${rx.url}/${n}`));
    // 60 sends, each a signed POST: a whole window for them.
    await windowWithRoom(55);
    const [a, b, c, d] = ids as [string, string, string, string];
    const targets = [a, b, c].flatMap((id) => Array<string>(MANUAL_SENDS_PER_MINUTE.endpoint).fill(id));
    const sends = await inParallel(targets, IN_FLIGHT, (id) => write('POST', `/webhooks/${id}/test`, p.test_key));
    expect(sends.map((s) => s.status)).toEqual(Array(MANUAL_SENDS_PER_MINUTE.environment).fill(200));
    const key = randomUUID();
    const toD = () => write('POST', `/webhooks/${d}/test`, p.test_key, undefined, { idempotencyKey: key });
    expectRefused(await toD(), 'environment', d);
    // A test send acts outside its commit, so its outcomes are stored under its key; a 429, refused before it acted, is not.
    const again = await toD();
    expectRefused(again, 'environment', d);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expectRefused(await write('POST', `/webhooks/${a}/test`, p.test_key), 'endpoint', a);
    expect(await counters(p.partner_id, null)).toEqual([MANUAL_SENDS_PER_MINUTE.environment]);
    // The 60 test sends, each answered: the refused ones sent nothing.
    await sleep(1_500);
    expect(rx.received).toHaveLength(MANUAL_SENDS_PER_MINUTE.environment);
  });
});
