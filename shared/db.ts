import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from './aws';

export type Item = Record<string, unknown>;

/**
 * One page of a keyset Query: reads until it holds limit + 1 matching items
 * (filters apply after DynamoDB's Limit) so `hasMore` is exact and the last
 * page never hands out a cursor to an empty page.
 */
export async function queryPage(
  input: Omit<QueryCommandInput, 'Limit' | 'ExclusiveStartKey'>,
  limit: number,
  startKey?: Item,
): Promise<{ items: Item[]; hasMore: boolean }> {
  const items: Item[] = [];
  let ExclusiveStartKey = startKey;
  do {
    const r = await ddb.send(new QueryCommand({ ...input, Limit: Math.max(limit + 1 - items.length, 1), ExclusiveStartKey }));
    items.push(...(r.Items ?? []));
    ExclusiveStartKey = r.LastEvaluatedKey;
  } while (items.length <= limit && ExclusiveStartKey);
  return { items: items.slice(0, limit), hasMore: items.length > limit };
}

/** Every item of a Query, following LastEvaluatedKey. */
export async function queryAll(input: Omit<QueryCommandInput, 'ExclusiveStartKey'>): Promise<Item[]> {
  const out: Item[] = [];
  let ExclusiveStartKey: Item | undefined;
  do {
    const r = await ddb.send(new QueryCommand({ ...input, ExclusiveStartKey }));
    out.push(...(r.Items ?? []));
    ExclusiveStartKey = r.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}

/** Removes the storage attributes (keys, index keys, TTL, type tag) from an item. */
export function clean<T>(item: Item): T {
  const out: Item = {};
  for (const [k, v] of Object.entries(item)) {
    if (k === 'pk' || k === 'sk' || k === 'ttl' || k === 'type' || /^gsi\d+(pk|sk)$/.test(k)) continue;
    out[k] = v;
  }
  return out as T;
}
