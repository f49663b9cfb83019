import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { gsiLagFromEnv, SETTLED_PATH } from '../../infra/local/gsi-lag';
import { readRuntime } from '../../infra/local/runtime-info';
import { testDb } from './helpers';

// The layer of infra/local/gsi-lag.ts, through the SDK as the service meets it: the test stack's index reads
// show the table as it was LOCAL_GSI_LAG_MS (750 ms) earlier. Items here live in a partition of their own.
const { ddb, dataTable } = testDb();
const lagMs = Number(readRuntime(inject('stateDir'), inject('port'))!.env.LOCAL_GSI_LAG_MS);

describe('index reads on the local stack lag their writes (LOCAL_GSI_LAG_MS)', () => {
  const partition = `LAGTEST-${randomUUID()}`;
  const key = (n: number) => ({ pk: `${partition}-${n}`, sk: 'ITEM' });
  const index = (extra: Record<string, unknown> = {}) =>
    ddb.send(
      new QueryCommand({
        TableName: dataTable,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': partition },
        ReturnConsumedCapacity: 'TOTAL',
        ...extra,
      }),
    );
  const versions = async () => (await index()).Items?.map((i) => i.v) ?? [];
  // Bounded: the layer applies a write `lag` ms after it; 10 s covers a loaded machine.
  const soon = { timeout: 10_000, interval: 100 };

  it('runs with a lag that makes an immediate index read miss', () => {
    expect(lagMs).toBeGreaterThanOrEqual(500);
  });

  it('hides a new item from the index until the lag has passed, while the table has it at once', async () => {
    await ddb.send(new PutCommand({ TableName: dataTable, Item: { ...key(1), gsi1pk: partition, gsi1sk: '1', v: 1 } }));
    const r = await index();
    expect(r.Items).toEqual([]);
    expect(r.Count).toBe(0);
    // The copy's name never shows.
    expect(r.ConsumedCapacity?.TableName).toBe(dataTable);
    expect((await ddb.send(new GetCommand({ TableName: dataTable, Key: key(1), ConsistentRead: true }))).Item?.v).toBe(1);
    await expect.poll(versions, soon).toEqual([1]);
  });

  it('shows an updated item as it was, then as it is', async () => {
    await ddb.send(new UpdateCommand({ TableName: dataTable, Key: key(1), UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': 2 } }));
    expect(await versions()).toEqual([1]);
    await expect.poll(versions, soon).toEqual([2]);
  });

  it('keeps an item that left the index (in a transaction) or was deleted, until the lag has passed', async () => {
    await ddb.send(new PutCommand({ TableName: dataTable, Item: { ...key(2), gsi1pk: partition, gsi1sk: '2', v: 20 } }));
    await expect.poll(versions, soon).toEqual([2, 20]);
    await ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: { TableName: dataTable, Key: key(1), UpdateExpression: 'SET v = :v REMOVE gsi1pk, gsi1sk', ExpressionAttributeValues: { ':v': 3 } } },
          { Delete: { TableName: dataTable, Key: key(2) } },
        ],
      }),
    );
    expect(await versions()).toEqual([2, 20]);
    await expect.poll(versions, soon).toEqual([]);
  });

  it('pages and counts over the index as it was', async () => {
    for (const n of [3, 4, 5]) await ddb.send(new PutCommand({ TableName: dataTable, Item: { ...key(n), gsi1pk: partition, gsi1sk: String(n), v: n } }));
    expect((await index({ Select: 'COUNT' })).Count).toBe(0);
    await expect.poll(async () => (await index({ Select: 'COUNT' })).Count, soon).toBe(3);
    await ddb.send(new DeleteCommand({ TableName: dataTable, Key: key(4) }));
    const seen: unknown[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await index({ Limit: 1, ExclusiveStartKey });
      seen.push(...(page.Items ?? []).map((i) => i.v));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    expect(seen).toEqual([3, 4, 5]);
  });

  it('answers its settled path once the writes acknowledged before it are in the index (what tests wait on, not a sleep)', async () => {
    await ddb.send(new PutCommand({ TableName: dataTable, Item: { ...key(9), gsi1pk: partition, gsi1sk: '9', v: 90 } }));
    const acked = Date.now();
    expect(await versions()).not.toContain(90);
    const res = await fetch(`${readRuntime(inject('stateDir'), inject('port'))!.env.AWS_ENDPOINT_URL_DYNAMODB}${SETTLED_PATH}`);
    expect(res.status).toBe(200);
    // Not before the lag: it waited for the write, not for nothing.
    expect(Date.now() - acked).toBeGreaterThanOrEqual(lagMs - 250);
    expect(await versions()).toContain(90);
  });

  it('refuses a strongly consistent read of an index, as DynamoDB does', async () => {
    await expect(index({ ConsistentRead: true })).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('reads its setting once, validated: 0 turns it off, anything but whole milliseconds up to 10 s is refused', () => {
    expect(gsiLagFromEnv(250, {})).toBe(250);
    expect(gsiLagFromEnv(250, { LOCAL_GSI_LAG_MS: '0' })).toBe(0);
    expect(gsiLagFromEnv(250, { LOCAL_GSI_LAG_MS: '900' })).toBe(900);
    for (const bad of ['fast', '-1', '1.5', '10001']) expect(() => gsiLagFromEnv(250, { LOCAL_GSI_LAG_MS: bad })).toThrow(/LOCAL_GSI_LAG_MS/);
  });
});
