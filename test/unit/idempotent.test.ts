import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { dataTable, transact } from '../../shared/db/client';
import type { Principal, RequestState } from '../../shared/http/context';
import { runIdempotent, sealFor } from '../../shared/http/idempotent';
import { jsonResult } from '../../shared/http/respond';
import type { RouteDef } from '../../shared/http/route-def';
import type { ApiEvent, ApiResult } from '../../shared/http/types';
import { ApiError } from '../../shared/kernel/errors';
import { logger } from '../../shared/kernel/logger';
import { platformKeys } from '../../shared/platform/keys';
import { FakeTable } from './fake-dynamo';

// runIdempotent against an in-memory table: which outcomes stay stored under the key, and which free it for a rerun.
process.env.DATA_TABLE = 'data';
process.env.ACCESS_TABLE = 'access';

const ddb = mockClient(DynamoDBDocumentClient);
let db: FakeTable;
/** How the next transaction fails: throttled (nothing written), or committed with its answer lost (a timeout). */
let nextTransact: 'throttled' | 'answer-lost' | undefined;

beforeEach(() => {
  db = new FakeTable();
  nextTransact = undefined;
  ddb.reset();
  ddb.on(PutCommand).callsFake((i) => {
    const existing = db.get(i.Item);
    // The claim's condition: attribute_not_exists(pk) OR expires_at < :now.
    if (i.ConditionExpression && existing && !((existing.expires_at as number) < i.ExpressionAttributeValues[':now'])) {
      throw new ConditionalCheckFailedException({ message: 'condition', $metadata: {}, Item: marshall(existing) });
    }
    db.put(i.Item);
    return {};
  });
  ddb.on(UpdateCommand).callsFake((i) => {
    try {
      db.transact([{ Update: i }]);
    } catch {
      throw new ConditionalCheckFailedException({ message: 'condition', $metadata: {} });
    }
    return {};
  });
  ddb.on(DeleteCommand).callsFake((i) => {
    if (!db.condition(i.ConditionExpression, db.get(i.Key), i.ExpressionAttributeNames, i.ExpressionAttributeValues)) {
      throw new ConditionalCheckFailedException({ message: 'condition', $metadata: {} });
    }
    db.items.delete(`${i.Key.pk}|${i.Key.sk}`);
    return {};
  });
  ddb.on(TransactWriteCommand).callsFake((i) => {
    const failure = nextTransact;
    nextTransact = undefined;
    if (failure === 'throttled') throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException' });
    db.transact(i.TransactItems);
    if (failure === 'answer-lost') throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
    return {};
  });
  vi.spyOn(logger, 'error').mockImplementation(() => undefined);
});
afterAll(() => ddb.restore());

const partnerId = randomUUID();
const principal = {
  partnerId,
  env: 'test',
  memberId: 'm1',
  role: 'PARTNER_ADMIN',
  via: 'api_key',
  keyId: 'k1',
  keyCreatedAt: null,
  scopes: new Set<string>(),
  rateLimitPerMinute: 100,
  rateRemaining: 100,
  rateReset: 0,
  partnerName: 'P',
  memberEmail: 'p@example.com',
} satisfies Principal;

const routeDef = (extra: Partial<RouteDef> = {}): RouteDef => ({
  id: 'bookThing',
  method: 'POST',
  path: '/v1/things',
  handler: 'n/a',
  access: 'key',
  scope: 'bookings:write',
  tag: 'Bookings',
  summary: 'test',
  responses: { 201: { description: 'booked' } },
  write: true,
  ...extra,
});

const event = {
  rawPath: '/v1/things',
  rawQueryString: '',
  requestContext: { http: { method: 'POST' } },
} as unknown as ApiEvent;

type Outcome = 'commit' | 'contended' | 'throttled' | 'unavailable' | 'fail-after-commit' | 'commit-answer-lost';

/**
 * One request with `key`: the operation commits a thing with its sealed answer, or fails as `outcome` says.
 * Resolves once what the HTTP layer awaits (the stored outcome, or the release) has landed.
 */
async function request(key: string, outcome: Outcome, def = routeDef()) {
  const state: RequestState = {
    requestId: randomUUID(),
    route: def,
    startedAt: Date.now(),
    path: def.path,
    headers: {},
    bodyBytes: Buffer.from('{"n":1}'),
    principal,
    idempotencyKey: key,
    pending: [],
  };
  let ran = false;
  const run = async (): Promise<ApiResult> => {
    ran = true;
    if (outcome === 'contended') throw new ApiError('booking.slot.contended', 'Retry.', undefined, { 'retry-after': '1' });
    if (outcome === 'unavailable') throw new ApiError('booking.slot.unavailable', 'Sold out.', { reason: 'sold_out' });
    if (outcome === 'throttled') nextTransact = 'throttled';
    if (outcome === 'commit-answer-lost') nextTransact = 'answer-lost';
    const thing = { id: randomUUID() };
    const item = { Put: { TableName: dataTable.name(), Item: { pk: `thing/${thing.id}`, sk: 'thing' } } };
    const cancelled = await transact(dataTable.client, { thing: item }, [], sealFor(def, state, (t: typeof thing) => t).items(thing));
    if (cancelled) throw new Error('cancelled');
    if (outcome === 'fail-after-commit') throw new Error('event publication failed');
    return jsonResult(201, thing);
  };
  const res = await runIdempotent(event, state, run);
  await Promise.allSettled(state.pending);
  return { res, ran, body: JSON.parse(res.body ?? '{}') as Record<string, unknown> };
}

const things = () => [...db.items.keys()].filter((k) => k.startsWith('thing/')).length;
const record = (key: string) => db.get(platformKeys.idempotency(partnerId, 'test', key));

describe('runIdempotent: what stays stored under the Idempotency-Key', () => {
  it('releases the key of a contended operation, so a retry with the same key runs it again', async () => {
    const key = randomUUID();
    const first = await request(key, 'contended');
    expect(first.res.statusCode).toBe(409);
    expect(first.body.code).toBe('booking.slot.contended');
    expect(record(key)).toBeUndefined();

    const retry = await request(key, 'commit');
    expect(retry.ran).toBe(true);
    expect(retry.res.statusCode).toBe(201);
    expect(retry.res.headers['idempotent-replayed']).toBeUndefined();
    expect(things()).toBe(1);

    const again = await request(key, 'commit');
    expect(again.ran).toBe(false);
    expect(again.res.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(retry.body);
  });

  it('releases the key of a 500 before the commit (DynamoDB throttling), so the retry runs and commits once', async () => {
    const key = randomUUID();
    const first = await request(key, 'throttled');
    expect(first.res.statusCode).toBe(500);
    expect(first.body.code).toBe('internal.error');
    expect(record(key)).toBeUndefined();
    expect(things()).toBe(0);

    const retry = await request(key, 'commit');
    expect(retry.ran).toBe(true);
    expect(retry.res.statusCode).toBe(201);
    expect(things()).toBe(1);
  });

  it('replays a committed success, even when something failed after the commit', async () => {
    const key = randomUUID();
    const first = await request(key, 'fail-after-commit');
    expect(first.res.statusCode).toBe(201);
    const retry = await request(key, 'commit');
    expect(retry.ran).toBe(false);
    expect(retry.res.statusCode).toBe(201);
    expect(retry.res.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(things()).toBe(1);
  });

  it('replays the committed answer when the commit landed but its answer was lost (the release finds the key completed)', async () => {
    const key = randomUUID();
    const first = await request(key, 'commit-answer-lost');
    expect(first.res.statusCode).toBe(500);
    expect(record(key)?.state).toBe('COMPLETED');
    const retry = await request(key, 'commit');
    expect(retry.ran).toBe(false);
    expect(retry.res.statusCode).toBe(201);
    expect(retry.res.headers['idempotent-replayed']).toBe('true');
    expect(things()).toBe(1);
  });

  it('keeps a deterministic refusal (422 booking.slot.unavailable) stored: the retry replays it', async () => {
    const key = randomUUID();
    const first = await request(key, 'unavailable');
    expect(first.res.statusCode).toBe(422);
    const retry = await request(key, 'commit');
    expect(retry.ran).toBe(false);
    expect(retry.res.statusCode).toBe(422);
    expect(retry.res.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.code).toBe('booking.slot.unavailable');
    expect(things()).toBe(0);
  });

  it('keeps a 500 stored for a route that acts outside its commit: a rerun would act again', async () => {
    const key = randomUUID();
    const def = routeDef({ effectsOutsideCommit: 'e-mails before the commit' });
    const first = await request(key, 'throttled', def);
    expect(first.res.statusCode).toBe(500);
    const retry = await request(key, 'commit', def);
    expect(retry.ran).toBe(false);
    expect(retry.res.statusCode).toBe(500);
    expect(retry.res.headers['idempotent-replayed']).toBe('true');
    expect(things()).toBe(0);
  });

  it('never stores a 500 over an answer whose commit landed though its reply was lost', async () => {
    const key = randomUUID();
    const def = routeDef({ effectsOutsideCommit: 'e-mails before the commit' });
    expect((await request(key, 'commit-answer-lost', def)).res.statusCode).toBe(500);
    const retry = await request(key, 'commit', def);
    expect(retry.ran).toBe(false);
    expect(retry.res.statusCode).toBe(201);
    expect(retry.res.headers['idempotent-replayed']).toBe('true');
  });
});
