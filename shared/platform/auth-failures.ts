import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { accessTable, type Table } from '../db/client';
import { loadConfig } from '../kernel/config';
import { platformKeys } from './keys';
import { evaluate, type RateLimitState, windowOf } from './rate-limit';

/**
 * Failed authentications allowed per minute: for one key id (a stranger
 * guessing at one key), and for one source address (a client spraying bad
 * keys; higher, since a bank's traffic may leave through one address).
 */
const limitsConfig = z.object({
  FAILED_AUTH_PER_KEY_PER_MINUTE: z.coerce.number().int().positive().default(20),
  FAILED_AUTH_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().positive().default(100),
});
export const failedAuthLimits = () => loadConfig(limitsConfig);

async function count(key: { pk: string; sk: string }, reset: number, table: Table): Promise<number> {
  const r = await table.client.send(
    new UpdateCommand({
      TableName: table.name(),
      Key: key,
      UpdateExpression: 'ADD #n :one SET #ttl = if_not_exists(#ttl, :ttl)',
      ExpressionAttributeNames: { '#n': 'count', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':ttl': reset + 120 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(r.Attributes?.count ?? 1);
}

/**
 * Counts one failed authentication for the key id the token names (if it
 * names one) and for the source address, in the current one-minute window.
 * Beyond either budget, the caller answers 429 instead of 401. A request
 * with the right secret never touches these counters, so a stranger guessing
 * at a key id cannot lock its owner out.
 */
export async function countFailedAuthentication(
  keyId: string | undefined,
  address: string,
  nowMs = Date.now(),
  table: Table = accessTable,
): Promise<RateLimitState> {
  const { start, reset } = windowOf(nowMs);
  const limits = failedAuthLimits();
  const [byAddress, byKey] = await Promise.all([
    count(platformKeys.authFailures({ address }, start), reset, table).then((n) => evaluate(n, limits.FAILED_AUTH_PER_ADDRESS_PER_MINUTE, nowMs)),
    keyId ? count(platformKeys.authFailures({ keyId }, start), reset, table).then((n) => evaluate(n, limits.FAILED_AUTH_PER_KEY_PER_MINUTE, nowMs)) : undefined,
  ]);
  // The tighter of the two budgets is the one the answer reports.
  return byKey && byKey.remaining < byAddress.remaining ? byKey : byAddress;
}
