import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Table } from './client';
import { backoff } from './retry';

export type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Record<string, unknown> } };

/** BatchWriteItem in groups of 25, re-sending unprocessed items with backoff. */
export async function batchWrite(table: Table, requests: WriteRequest[], concurrency = 4): Promise<void> {
  const TableName = table.name();
  const groups: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += 25) groups.push(requests.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < groups.length) {
      let pending = groups[next++]!;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 8) throw new Error(`BatchWriteItem kept returning unprocessed items for ${TableName}`);
        if (attempt > 0) await backoff(attempt, 25, 5000);
        const r = await table.client.send(new BatchWriteCommand({ RequestItems: { [TableName]: pending } }));
        pending = (r.UnprocessedItems?.[TableName] ?? []) as WriteRequest[];
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, groups.length) }, worker));
}
