import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Table } from './client';
import { isConditionFailed } from './errors';
import { batchGet, type Item, type Key, queryPages } from './query';

/**
 * Moves the records of a list that was an index partition to the list's rows in the table (the lists a
 * caller reads right after writing: an index lags its table, a row is read strongly consistent). For each
 * record still in the index partition: its row, built from the record as it is now (read strongly
 * consistent), unless a change since the new code already put one; then the record leaves the index.
 * Idempotent: a record that left the index is done, and a run cut short is resumed by the next.
 * Resolves to the number of records moved.
 */
export async function moveIndexToRows(table: Table, o: { index: 'gsi1' | 'gsi2'; partition: string; row: (record: Item) => Item }): Promise<number> {
  const TableName = table.name();
  let moved = 0;
  const pages = queryPages(table, {
    IndexName: o.index,
    KeyConditionExpression: `${o.index}pk = :p`,
    ExpressionAttributeValues: { ':p': o.partition },
    ProjectionExpression: 'pk, sk',
  });
  for await (const page of pages) {
    for (let i = 0; i < page.length; i += 100) {
      const records = await batchGet(
        table,
        page.slice(i, i + 100).map((k) => ({ pk: k.pk, sk: k.sk }) as Key),
      );
      for (const record of records) {
        try {
          await table.client.send(new PutCommand({ TableName, Item: o.row(record), ConditionExpression: 'attribute_not_exists(pk)' }));
        } catch (e) {
          if (!isConditionFailed(e)) throw e;
        }
        try {
          await table.client.send(
            new UpdateCommand({
              TableName,
              Key: { pk: record.pk, sk: record.sk },
              UpdateExpression: `REMOVE ${o.index}pk, ${o.index}sk`,
              ConditionExpression: 'attribute_exists(pk)',
            }),
          );
        } catch (e) {
          if (!isConditionFailed(e)) throw e;
        }
        moved++;
      }
    }
  }
  return moved;
}
