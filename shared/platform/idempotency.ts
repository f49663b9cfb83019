import { createHash, randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { accessTable, type Table, type TransactItem } from '../db/client';
import { conditionFailedItem, isConditionFailed } from '../db/errors';
import { ApiError } from '../kernel/errors';
import { logger } from '../kernel/logger';
import type { Env } from '../kernel/tenant';
import { platformKeys } from './keys';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/**
 * How long after a route's function timed out its claim may still be held: Lambda stops an invocation at its
 * timeout, and a write it sent just before lands a moment later (conditional on the claim's token anyway).
 */
export const CLAIM_MARGIN_MS = 1_000;
/** The claim of a route whose function times out after `timeoutMs`: once it runs out, no request holds it any more. */
export const claimLifetimeMs = (timeoutMs: number) => timeoutMs + CLAIM_MARGIN_MS;
/**
 * The longest claim: the longest route timeout (29 s, under API Gateway's 30 s integration limit) and the margin.
 * What must outlast any request's claim (an invitation's hold of an address) lasts this long.
 */
export const IDEMPOTENCY_LOCK_MS = 30_000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The spec's rule for an Idempotency-Key: any non-blank value of at most 255 characters. */
export const isIdempotencyKey = (key: string) => key.trim() !== '' && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH;

/** A response as stored for replays: status, headers and the exact body. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded?: boolean;
}

interface IdempotencyRecord {
  fingerprint: string;
  state: 'IN_PROGRESS' | 'COMPLETED';
  lock_token: string;
  locked_until: number;
  expires_at: number;
  request_id: string;
  response?: StoredResponse;
}

export interface IdempotencyScope {
  partnerId: string;
  env: Env;
  idempotencyKey: string;
}

export type Claim = { kind: 'run'; token: string } | { kind: 'replay'; response: StoredResponse; requestId: string };

/** What makes two requests "the same": method, path with query, exact body. */
export function fingerprint(method: string, pathWithQuery: string, body: string | Uint8Array): string {
  return createHash('sha256')
    .update(`${method}\n${pathWithQuery}\n`)
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest('hex');
}

/**
 * The request holding the key may answer any moment, or may have died (a crash, a timeout): `Retry-After` is the
 * time until its claim runs out and a retry takes it over, the longest a retry can have to wait.
 */
const inProgress = (idempotencyKey?: string, retryAfterMs = 1_000) =>
  new ApiError(
    'idempotency.request.in_progress',
    `A request with this Idempotency-Key is still being processed; retry with the same key after Retry-After (at most ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s: by then its answer is stored, or its claim ran out and the retry runs it).`,
    idempotencyKey === undefined ? undefined : { idempotency_key: idempotencyKey },
    { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
  );

/**
 * Idempotency records: a conditional put claims the key (returning the
 * existing record on conflict in the same round trip); a completed record is
 * replayed; a record locked by a live request is "in progress"; one whose
 * lock outlived any function timeout is taken over.
 */
export function idempotencyStore(table: Table = accessTable) {
  const completionUpdate = (scope: IdempotencyScope, token: string, response: StoredResponse) => ({
    TableName: table.name(),
    Key: platformKeys.idempotency(scope.partnerId, scope.env, scope.idempotencyKey),
    UpdateExpression: 'SET #s = :done, #r = :resp REMOVE locked_until',
    // Never over an answer already stored: a commit whose reply was lost (a timeout) made the record COMPLETED.
    ConditionExpression: '#s = :inProgress AND lock_token = :token',
    ExpressionAttributeNames: { '#s': 'state', '#r': 'response' },
    ExpressionAttributeValues: { ':done': 'COMPLETED', ':inProgress': 'IN_PROGRESS', ':token': token, ':resp': response },
  });
  return {
    /** Claims the key for a request whose function times out after `timeoutMs` (its claim lasts that long, and the margin). */
    async claim(scope: IdempotencyScope, fp: string, requestId: string, timeoutMs: number, now = Date.now()): Promise<Claim> {
      const lockMs = claimLifetimeMs(timeoutMs);
      const Key = platformKeys.idempotency(scope.partnerId, scope.env, scope.idempotencyKey);
      const token = randomUUID();
      try {
        await table.client.send(
          new PutCommand({
            TableName: table.name(),
            Item: {
              ...Key,
              fingerprint: fp,
              state: 'IN_PROGRESS',
              lock_token: token,
              locked_until: now + lockMs,
              expires_at: now + IDEMPOTENCY_TTL_MS,
              ttl: Math.floor((now + IDEMPOTENCY_TTL_MS) / 1000),
              request_id: requestId,
              created_at: new Date(now).toISOString(),
            },
            // TTL deletes lazily: an expired record counts as absent.
            ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now',
            ExpressionAttributeValues: { ':now': now },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { kind: 'run', token };
      } catch (e) {
        const item = conditionFailedItem(e);
        if (!item) throw e;
        const existing = unmarshall(item as Parameters<typeof unmarshall>[0]) as IdempotencyRecord;
        if (existing.fingerprint !== fp) {
          throw new ApiError('idempotency.key.reused', 'This Idempotency-Key was already used for a different request; use a new key for a new operation.', {
            idempotency_key: scope.idempotencyKey,
          });
        }
        if (existing.state === 'COMPLETED') return { kind: 'replay', response: existing.response!, requestId: existing.request_id };
        if (existing.locked_until > now) throw inProgress(scope.idempotencyKey, existing.locked_until - now);
        await this.takeOver(Key, existing.lock_token, token, requestId, now, lockMs);
        return { kind: 'run', token };
      }
    },

    async takeOver(Key: { pk: string; sk: string }, oldToken: string, token: string, requestId: string, now: number, lockMs: number) {
      try {
        await table.client.send(
          new UpdateCommand({
            TableName: table.name(),
            Key,
            UpdateExpression: 'SET lock_token = :token, locked_until = :until, request_id = :rid',
            ConditionExpression: '#s = :inProgress AND lock_token = :old',
            ExpressionAttributeNames: { '#s': 'state' },
            ExpressionAttributeValues: {
              ':token': token,
              ':until': now + lockMs,
              ':rid': requestId,
              ':inProgress': 'IN_PROGRESS',
              ':old': oldToken,
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        logger.warn('idempotency record taken over from an interrupted request');
      } catch (e) {
        // Another retry took it over first (or it completed): that one's claim is the wait.
        const item = conditionFailedItem(e);
        if (!isConditionFailed(e)) throw e;
        const other = item ? (unmarshall(item as Parameters<typeof unmarshall>[0]) as IdempotencyRecord) : undefined;
        // (Completed meanwhile: its answer is stored, the next retry gets it.)
        throw inProgress(undefined, other?.state === 'COMPLETED' ? 0 : (other?.locked_until ?? now + lockMs) - now);
      }
    },

    /** Gives up a claim whose request was refused before its operation ran (only while this request holds it). */
    async release(scope: IdempotencyScope, token: string): Promise<void> {
      try {
        await table.client.send(
          new DeleteCommand({
            TableName: table.name(),
            Key: platformKeys.idempotency(scope.partnerId, scope.env, scope.idempotencyKey),
            ConditionExpression: '#s = :inProgress AND lock_token = :token',
            ExpressionAttributeNames: { '#s': 'state' },
            ExpressionAttributeValues: { ':inProgress': 'IN_PROGRESS', ':token': token },
          }),
        );
      } catch (e) {
        if (!isConditionFailed(e)) throw e;
      }
    },

    /** Stores the outcome, only while this request still holds the lock and nothing is stored yet. */
    async complete(scope: IdempotencyScope, token: string, response: StoredResponse): Promise<void> {
      await table.client.send(new UpdateCommand(completionUpdate(scope, token, response)));
    },

    /** The same completion as a transaction item, for the transaction that commits the operation itself. */
    completion(scope: IdempotencyScope, token: string, response: StoredResponse): TransactItem {
      return { Update: completionUpdate(scope, token, response) };
    },
  };
}

/** Refusal of an operation whose request lost its idempotency lock to a retry that took it over: the retry runs it instead. */
export const lockLost = (idempotencyKey?: string) => inProgress(idempotencyKey);

export const idempotency = idempotencyStore();
