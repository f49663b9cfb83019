import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from './aws';

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Record<string, unknown> } };

/** BatchWriteItem in groups of 25, re-sending unprocessed items with backoff. */
export async function batchWrite(table: string, requests: WriteRequest[], concurrency = 4): Promise<void> {
  const groups: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += 25) groups.push(requests.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < groups.length) {
      let pending = groups[next++]!;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 8) throw new Error(`BatchWriteItem kept returning unprocessed items for ${table}`);
        const r = await ddb.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
        pending = (r.UnprocessedItems?.[table] ?? []) as WriteRequest[];
        if (pending.length) await new Promise((res) => setTimeout(res, 2 ** attempt * 25));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, groups.length) }, worker));
}
