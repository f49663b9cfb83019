import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LAST_USE_RETENTION_DAYS } from '../access/model';
import { accessTable, type Table } from '../db/client';
import { isConditionFailed } from '../db/errors';
import { platformKeys } from './keys';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix seconds when the current window ends. */
  reset: number;
  exceeded: boolean;
  retryAfter: number;
}

const WINDOW_SECONDS = 60;

/** The X-RateLimit-* headers of a counted request. */
export function rateHeaders(rate: RateLimitState): Record<string, string> {
  return { 'x-ratelimit-limit': String(rate.limit), 'x-ratelimit-remaining': String(rate.remaining), 'x-ratelimit-reset': String(rate.reset) };
}

export function windowOf(nowMs: number) {
  const start = Math.floor(nowMs / 1000 / WINDOW_SECONDS) * WINDOW_SECONDS;
  return { start, reset: start + WINDOW_SECONDS };
}

export function evaluate(count: number, limit: number, nowMs: number): RateLimitState {
  const { reset } = windowOf(nowMs);
  const exceeded = count > limit;
  return {
    limit,
    remaining: Math.max(0, limit - count),
    reset,
    exceeded,
    retryAfter: Math.max(1, reset - Math.floor(nowMs / 1000)),
  };
}

/**
 * Counts one request for the key in the current fixed one-minute window with
 * a DynamoDB atomic counter, shared by every Lambda instance. The same write
 * records the window's first request (used_at, set once per window, so at most
 * once a minute per key): the key's last use, with no call of its own. The item
 * expires through TTL LAST_USE_RETENTION_DAYS after its window.
 */
export async function countRequest(keyId: string, nowMs = Date.now(), table: Table = accessTable): Promise<number> {
  const { start, reset } = windowOf(nowMs);
  const r = await table.client.send(
    new UpdateCommand({
      TableName: table.name(),
      Key: platformKeys.rateCounter(keyId, start),
      UpdateExpression: 'ADD #n :one SET #ttl = if_not_exists(#ttl, :ttl), used_at = if_not_exists(used_at, :now)',
      ExpressionAttributeNames: { '#n': 'count', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':ttl': reset + LAST_USE_RETENTION_DAYS * 86_400, ':now': new Date(nowMs).toISOString() },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(r.Attributes?.count ?? 1);
}

/**
 * Spends one unit of a budget of `limit` a fixed one-minute window (the rate limiter's windows), shared by every
 * Lambda instance: the counter of the window (`key`, TTL 2 minutes after it) is one item, and one conditional
 * UpdateItem adds 1 only while it holds less than `limit`. DynamoDB applies the writes to an item one after the
 * other, each condition checked against the item the previous one left, so calls in parallel never spend more
 * than `limit`, and a refused call spends nothing. The answer says whether it was spent (`exceeded` if not), and
 * when to retry.
 */
export async function spendBudget(table: Table, key: (windowStart: number) => { pk: string; sk: string }, limit: number, nowMs = Date.now()) {
  const { start, reset } = windowOf(nowMs);
  try {
    const r = await table.client.send(
      new UpdateCommand({
        TableName: table.name(),
        Key: key(start),
        UpdateExpression: 'ADD #n :one SET #ttl = if_not_exists(#ttl, :ttl)',
        ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit',
        ExpressionAttributeNames: { '#n': 'count', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': reset + 120 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return evaluate(Number(r.Attributes?.count ?? 1), limit, nowMs);
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
    return evaluate(limit + 1, limit, nowMs);
  }
}

/**
 * When the key was last used, to the minute: the first request of the newest window it was counted in
 * (strongly consistent); undefined if it was not used in the last LAST_USE_RETENTION_DAYS days.
 */
export async function lastUsedAt(keyId: string, table: Table = accessTable): Promise<string | undefined> {
  const r = await table.client.send(
    new QueryCommand({
      TableName: table.name(),
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': platformKeys.rateCounters(keyId) },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  return r.Items?.[0]?.used_at as string | undefined;
}
