import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '../aws';
import { accessTableName } from '../config';

let cached: Promise<Buffer> | undefined;

/**
 * The service-wide key that makes cursors tamper-proof. Created on first use
 * with a conditional write (every instance ends up with the same key), read
 * once per container.
 */
export function cursorKey(): Promise<Buffer> {
  cached ??= load().catch((e) => {
    cached = undefined;
    throw e;
  });
  return cached;
}

async function load(): Promise<Buffer> {
  const Key = { pk: 'CONFIG', sk: 'cursor-key' };
  const got = await ddb.send(new GetCommand({ TableName: accessTableName(), Key, ConsistentRead: true }));
  if (got.Item) return Buffer.from(got.Item.value as string, 'base64');
  try {
    await ddb.send(
      new PutCommand({
        TableName: accessTableName(),
        Item: { ...Key, value: randomBytes(32).toString('base64'), created_at: new Date().toISOString() },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (e) {
    if ((e as Error).name !== 'ConditionalCheckFailedException') throw e;
  }
  const again = await ddb.send(new GetCommand({ TableName: accessTableName(), Key, ConsistentRead: true }));
  return Buffer.from(again.Item!.value as string, 'base64');
}
