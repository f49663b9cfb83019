import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { accessTable, type Table } from '../db/client';
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
 * a DynamoDB atomic counter, shared by every Lambda instance. The item expires
 * through TTL shortly after its window.
 */
export async function countRequest(keyId: string, nowMs = Date.now(), table: Table = accessTable): Promise<number> {
  const { start, reset } = windowOf(nowMs);
  const r = await table.client.send(
    new UpdateCommand({
      TableName: table.name(),
      Key: platformKeys.rateCounter(keyId, start),
      UpdateExpression: 'ADD #n :one SET #ttl = if_not_exists(#ttl, :ttl)',
      ExpressionAttributeNames: { '#n': 'count', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':ttl': reset + 120 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(r.Attributes?.count ?? 1);
}
