import { BatchGetCommand, type BatchGetCommandOutput, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Table } from './client';
import { backoff } from './retry';

export type Item = Record<string, unknown>;
export type Key = { pk: string; sk: string };
type QueryInput = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>;

/**
 * One page of a keyset Query: reads until it holds limit + 1 matching items
 * (filters apply after DynamoDB's Limit) so `hasMore` is exact and the last
 * page never hands out a cursor to an empty page.
 */
export async function queryPage(table: Table, input: Omit<QueryInput, 'Limit'>, limit: number, startKey?: Item): Promise<{ items: Item[]; hasMore: boolean }> {
  const items: Item[] = [];
  let ExclusiveStartKey = startKey;
  do {
    const r = await table.client.send(new QueryCommand({ ...input, TableName: table.name(), Limit: Math.max(limit + 1 - items.length, 1), ExclusiveStartKey }));
    items.push(...(r.Items ?? []));
    ExclusiveStartKey = r.LastEvaluatedKey;
  } while (items.length <= limit && ExclusiveStartKey);
  return { items: items.slice(0, limit), hasMore: items.length > limit };
}

/** Every item of a Query, following LastEvaluatedKey. */
export async function queryAll(table: Table, input: QueryInput): Promise<Item[]> {
  const out: Item[] = [];
  for await (const page of queryPages(table, input)) out.push(...page);
  return out;
}

/** The pages of a Query, one at a time, following LastEvaluatedKey. */
export async function* queryPages(table: Table, input: QueryInput): AsyncGenerator<Item[]> {
  let ExclusiveStartKey: Item | undefined;
  do {
    const r = await table.client.send(new QueryCommand({ ...input, TableName: table.name(), ExclusiveStartKey }));
    yield r.Items ?? [];
    ExclusiveStartKey = r.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

export interface NewestFirstQuery {
  /** The index to read (its partition key is `<index>pk`, its sort key `<index>sk`), or the table itself. */
  index?: 'gsi1' | 'gsi2';
  partition: string;
  /** The table key of the item whose index sort key is `sortKey`: DynamoDB resumes an index Query from both. */
  itemKey?: (sortKey: string) => Key;
  /** Sort-key bounds, inclusive. */
  between?: { from: string; to: string };
  filter?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
}

/**
 * A keyset page of one partition, newest first: `after` is the sort key of
 * the last row the previous page showed, `next` the one to resume from
 * (undefined on the last page).
 */
export async function newestFirst(table: Table, q: NewestFirstQuery, limit: number, after?: string): Promise<{ items: Item[]; next?: string }> {
  const [pkName, skName] = q.index ? [`${q.index}pk`, `${q.index}sk`] : ['pk', 'sk'];
  const values: Record<string, unknown> = { ':p': q.partition, ...q.filter?.values };
  if (q.between) Object.assign(values, { ':from': q.between.from, ':to': q.between.to });
  const { items, hasMore } = await queryPage(
    table,
    {
      // The table itself is read strongly consistent: a list shows the caller's own writes (an index cannot).
      ...(q.index ? { IndexName: q.index } : { ConsistentRead: true }),
      KeyConditionExpression: `${pkName} = :p${q.between ? ` AND ${skName} BETWEEN :from AND :to` : ''}`,
      ExpressionAttributeValues: values,
      ...(q.filter ? { FilterExpression: q.filter.expression } : {}),
      ...(q.filter?.names && Object.keys(q.filter.names).length ? { ExpressionAttributeNames: q.filter.names } : {}),
      ScanIndexForward: false,
    },
    limit,
    after === undefined ? undefined : { [pkName]: q.partition, [skName]: after, ...q.itemKey?.(after) },
  );
  return { items, next: hasMore ? (items.at(-1)![skName] as string) : undefined };
}

/** The items of an index partition whose sort key is below `before` (the sweeper's overdue work), a page at a time. */
export function indexBefore(table: Table, index: 'gsi1' | 'gsi2', partition: string, before: string): AsyncGenerator<Item[]> {
  return queryPages(table, {
    IndexName: index,
    KeyConditionExpression: `${index}pk = :p AND ${index}sk < :c`,
    ExpressionAttributeValues: { ':p': partition, ':c': before },
    Limit: 500,
  });
}

/** Strongly consistent BatchGetItem of up to 100 keys, re-sending unprocessed keys with backoff. */
export async function batchGet(table: Table, keys: Key[]): Promise<Item[]> {
  const TableName = table.name();
  const items: Item[] = [];
  let Keys: Item[] | undefined = keys;
  for (let attempt = 0; Keys?.length; attempt++) {
    if (attempt > 5) throw new Error('BatchGetItem kept returning unprocessed keys');
    if (attempt > 0) await backoff(attempt, 20, 500);
    const r: BatchGetCommandOutput = await table.client.send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys, ConsistentRead: true } } }));
    items.push(...(r.Responses?.[TableName] ?? []));
    Keys = r.UnprocessedKeys?.[TableName]?.Keys;
  }
  return items;
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

/** `attr IN (:prefix0, :prefix1, ...)` for a filter or condition, adding each value to `values`. */
export function inList(attr: string, items: readonly string[], values: Record<string, unknown>, prefix: string): string {
  const placeholders = items.map((item, i) => {
    values[`:${prefix}${i}`] = item;
    return `:${prefix}${i}`;
  });
  return `${attr} IN (${placeholders.join(', ')})`;
}
