import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { accessTable, type Table } from '../db/client';
import { isConditionFailed } from '../db/errors';
import { platformKeys } from './keys';

let cached: Promise<Buffer> | undefined;

/**
 * The service-wide key that makes cursors tamper-proof. Created on first use
 * with a conditional write (every instance ends up with the same key), read
 * once per container.
 */
export function cursorKey(table: Table = accessTable): Promise<Buffer> {
  cached ??= load(table).catch((e) => {
    cached = undefined;
    throw e;
  });
  return cached;
}

async function load(table: Table): Promise<Buffer> {
  const Key = platformKeys.config('cursor-key');
  const read = () => table.client.send(new GetCommand({ TableName: table.name(), Key, ConsistentRead: true }));
  const got = await read();
  if (got.Item) return Buffer.from(got.Item.value as string, 'base64');
  try {
    await table.client.send(
      new PutCommand({
        TableName: table.name(),
        Item: { ...Key, value: randomBytes(32).toString('base64'), created_at: new Date().toISOString() },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
  }
  return Buffer.from((await read()).Item!.value as string, 'base64');
}
