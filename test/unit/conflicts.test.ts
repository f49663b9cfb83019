import { DynamoDBClient, PutItemCommand, TransactGetItemsCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { transact } from '../../shared/db/client';
import { installConflictMode } from '../../shared/db/conflicts';

// The conflict-faithful mode against a client whose requests never leave the process: a last middleware
// answers every request after `serverMs`, as DynamoDB Local would, one request at a time or not.
function fakeDynamo(serverMs = 20, env: NodeJS.ProcessEnv = { DYNAMO_CONFLICTS: 'aws' }) {
  const client = new DynamoDBClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  const mode = installConflictMode(client, env);
  const reached: string[] = [];
  client.middlewareStack.add(
    (_next, context) => async () => {
      reached.push(context.commandName ?? '');
      await new Promise((r) => setTimeout(r, serverMs));
      return { output: { $metadata: {} }, response: {} };
    },
    { step: 'build', priority: 'low', name: 'fakeServer' },
  );
  return { client, mode, reached, doc: DynamoDBDocumentClient.from(client) };
}

const key = (pk: string, sk = 'A') => ({ pk: { S: pk }, sk: { S: sk } });
const put = (pk: string) => ({ Put: { TableName: 'data', Item: { ...key(pk), v: { N: '1' } } } });
const update = (pk: string) => ({
  Update: { TableName: 'data', Key: key(pk), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } },
});
const check = (pk: string) => ({ ConditionCheck: { TableName: 'data', Key: key(pk), ConditionExpression: 'attribute_exists(pk)' } });
const tx = (c: DynamoDBClient, ...items: object[]) => c.send(new TransactWriteItemsCommand({ TransactItems: items as never }));
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { name: string; CancellationReasons?: { Code: string }[] }) =>
      `${e.name}${e.CancellationReasons ? ` [${e.CancellationReasons.map((r) => r.Code).join(', ')}]` : ''}`,
  );

describe('conflict-faithful mode (DYNAMO_CONFLICTS=aws)', () => {
  it('cancels a transaction that shares an item with one in flight, with TransactionConflict on that item only', async () => {
    const { client, mode } = fakeDynamo();
    const first = outcome(tx(client, put('booking-1'), update('slot-1')));
    const second = outcome(tx(client, put('booking-2'), update('slot-1'), check('quote-2')));
    expect(await Promise.all([first, second])).toEqual(['ok', 'TransactionCanceledException [None, TransactionConflict, None]']);
    expect(mode.stats()).toEqual({ transactionsCancelled: 1, writesRefused: 0, readsCancelled: 0 });
  });

  it('lets transactions on disjoint items run side by side, and the same item once the first has ended', async () => {
    const { client, mode } = fakeDynamo();
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => outcome(tx(client, put(`booking-${i}`), update(`slot-${i}`)))));
    expect(all).toEqual(Array(20).fill('ok'));
    expect(await outcome(tx(client, update('slot-1')))).toBe('ok');
    expect(await outcome(tx(client, update('slot-1')))).toBe('ok');
    expect(mode.stats().transactionsCancelled).toBe(0);
  });

  it('counts a ConditionCheck as holding its item, as DynamoDB does', async () => {
    const { client } = fakeDynamo();
    const [a, b] = await Promise.all([outcome(tx(client, check('HEADER'))), outcome(tx(client, put('line-2'), check('HEADER')))]);
    expect([a, b]).toEqual(['ok', 'TransactionCanceledException [None, TransactionConflict]']);
  });

  it('refuses a single write of an item a transaction holds (TransactionConflictException), not of other items', async () => {
    const { client, mode } = fakeDynamo();
    const running = outcome(tx(client, update('slot-1')));
    await new Promise((r) => setTimeout(r, 5));
    const held = outcome(client.send(new PutItemCommand({ TableName: 'data', Item: key('slot-1') })));
    const free = outcome(client.send(new PutItemCommand({ TableName: 'data', Item: key('slot-2') })));
    expect(await Promise.all([running, held, free])).toEqual(['ok', 'TransactionConflictException', 'ok']);
    expect(mode.stats().writesRefused).toBe(1);
  });

  it('cancels a TransactGetItems of an item a single write has in flight', async () => {
    const { client, mode } = fakeDynamo();
    const writing = outcome(client.send(new PutItemCommand({ TableName: 'data', Item: key('r-1') })));
    await new Promise((r) => setTimeout(r, 5));
    const read = outcome(
      client.send(
        new TransactGetItemsCommand({ TransactItems: [{ Get: { TableName: 'data', Key: key('r-0') } }, { Get: { TableName: 'data', Key: key('r-1') } }] }),
      ),
    );
    expect(await Promise.all([writing, read])).toEqual(['ok', 'TransactionCanceledException [None, TransactionConflict]']);
    expect(mode.stats().readsCancelled).toBe(1);
  });

  it('compares the keys the document client marshalled, and reads as a conflict through transact()', async () => {
    const { doc } = fakeDynamo();
    const item = (pk: string) => ({ Put: { TableName: 'data', Item: { pk, sk: 'X', n: 1 } } });
    const [a, b] = await Promise.all([
      transact(doc, { line: item('line-1'), header: item('HEADER') }),
      transact(doc, { line: item('line-2'), header: item('HEADER') }),
    ]);
    expect(a).toBeUndefined();
    expect(b?.conflict).toBe(true);
    expect(b?.codes).toEqual(['None', 'TransactionConflict']);
  });

  it('adds the round-trip delay and does nothing when off', async () => {
    const { client, mode, reached } = fakeDynamo(1, {});
    expect(mode.enabled).toBe(false);
    expect(await Promise.all([outcome(tx(client, update('S'))), outcome(tx(client, update('S')))])).toEqual(['ok', 'ok']);
    mode.enable({ latencyMs: 40 });
    const started = Date.now();
    expect(await Promise.all([outcome(tx(client, update('S'))), outcome(tx(client, update('S')))])).toEqual([
      'ok',
      'TransactionCanceledException [TransactionConflict]',
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(38);
    expect(reached).toHaveLength(3);
  });
});
