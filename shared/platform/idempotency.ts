import { createHash, randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ddb } from '../aws';
import { accessTableName } from '../config';
import { ApiError } from '../errors';
import { logger } from '../logger';
import type { RequestState } from '../http/context';
import { errorResult } from '../http/respond';
import type { ApiEvent, ApiResult } from '../http/types';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** Longer than the function timeout: a record still locked after this was left by a worker that died. */
export const IDEMPOTENCY_LOCK_MS = 30_000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded?: boolean;
}

interface Record_ {
  fingerprint: string;
  state: 'IN_PROGRESS' | 'COMPLETED';
  lock_token: string;
  locked_until: number;
  expires_at: number;
  request_id: string;
  response?: StoredResponse;
}

/** Secrets shown once (a new key, a signing secret) are never stored: a replay carries null instead. */
function redact(body: string, fields: string[] | undefined): string {
  if (!fields?.length || !body) return body;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    for (const f of fields) if (f in parsed) parsed[f] = null;
    return JSON.stringify(parsed);
  } catch {
    return body;
  }
}

/** What makes two requests "the same": method, path with query, exact body. */
export function fingerprint(method: string, pathWithQuery: string, body: string): string {
  return createHash('sha256').update(`${method}\n${pathWithQuery}\n${body}`).digest('hex');
}

export function pathWithQuery(event: ApiEvent): string {
  return event.rawQueryString ? `${event.rawPath}?${event.rawQueryString}` : event.rawPath;
}

function replay(r: Record_): ApiResult {
  const res = r.response!;
  return {
    statusCode: res.status,
    headers: { ...res.headers, 'idempotent-replayed': 'true', 'x-request-id': r.request_id },
    body: res.body,
    isBase64Encoded: res.isBase64Encoded,
  };
}

/**
 * Runs a write at most once per (partner, environment, Idempotency-Key):
 * a conditional put claims the key (returning the existing record on conflict
 * in the same round trip); a completed record is replayed; a record locked by
 * a live request answers 409 in progress; one whose lock outlived any
 * function timeout is taken over. Every outcome of an operation that ran is
 * stored, errors included, as Stripe does; requests refused before running
 * (authentication, validation, rate limit, conflicts) store nothing.
 */
export async function runIdempotent(event: ApiEvent, state: RequestState, run: () => Promise<ApiResult>): Promise<ApiResult> {
  const p = state.principal!;
  const TableName = accessTableName();
  const Key = { pk: `IDEM#${p.partnerId}#${p.env}#${state.idempotencyKey}`, sk: 'IDEM' };
  const fp = fingerprint(event.requestContext.http.method, pathWithQuery(event), state.rawBody);
  const token = randomUUID();
  const now = Date.now();
  try {
    await ddb.send(
      new PutCommand({
        TableName,
        Item: {
          ...Key,
          fingerprint: fp,
          state: 'IN_PROGRESS',
          lock_token: token,
          locked_until: now + IDEMPOTENCY_LOCK_MS,
          expires_at: now + IDEMPOTENCY_TTL_MS,
          ttl: Math.floor((now + IDEMPOTENCY_TTL_MS) / 1000),
          request_id: state.requestId,
          created_at: new Date(now).toISOString(),
        },
        // TTL deletes lazily: an expired record counts as absent.
        ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now',
        ExpressionAttributeValues: { ':now': now },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException) || !e.Item) throw e;
    const existing = unmarshall(e.Item) as Record_;
    if (existing.fingerprint !== fp) {
      throw new ApiError('idempotency.key.reused', 'This Idempotency-Key was already used for a different request; use a new key for a new operation.', {
        idempotency_key: state.idempotencyKey,
      });
    }
    if (existing.state === 'COMPLETED') return replay(existing);
    if (existing.locked_until > now) {
      throw new ApiError(
        'idempotency.request.in_progress',
        'A request with this Idempotency-Key is still being processed; retry in a few seconds.',
        { idempotency_key: state.idempotencyKey },
        { 'retry-after': '1' },
      );
    }
    await takeOver(TableName, Key, existing.lock_token, token, now, state);
  }

  let result: ApiResult;
  try {
    result = await run();
  } catch (e) {
    if (e instanceof ApiError) result = errorResult(e, state.requestId);
    else {
      logger.error('unhandled error', { error: e instanceof Error ? { name: e.name, message: e.message, stack: e.stack } : String(e) });
      result = errorResult(new ApiError('internal.error', 'An internal error occurred. Retry later and quote the request id if it persists.'), state.requestId);
    }
  }
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  // Awaited by the HTTP layer together with the audit write, before the response leaves.
  const stored = ddb.send(
    new UpdateCommand({
      TableName,
      Key,
      UpdateExpression: 'SET #s = :done, #r = :resp REMOVE locked_until',
      ConditionExpression: 'lock_token = :token',
      ExpressionAttributeNames: { '#s': 'state', '#r': 'response' },
      ExpressionAttributeValues: {
        ':done': 'COMPLETED',
        ':token': token,
        ':resp': { status: result.statusCode ?? 200, headers, body: redact(result.body ?? '', state.route.secretFields), isBase64Encoded: result.isBase64Encoded ?? false } satisfies StoredResponse,
      },
    }),
  );
  state.pending.push(stored);
  return result;
}

async function takeOver(TableName: string, Key: Record<string, string>, oldToken: string, token: string, now: number, state: RequestState) {
  try {
    await ddb.send(
      new UpdateCommand({
        TableName,
        Key,
        UpdateExpression: 'SET lock_token = :token, locked_until = :until, request_id = :rid',
        ConditionExpression: '#s = :inProgress AND lock_token = :old',
        ExpressionAttributeNames: { '#s': 'state' },
        ExpressionAttributeValues: { ':token': token, ':until': now + IDEMPOTENCY_LOCK_MS, ':rid': state.requestId, ':inProgress': 'IN_PROGRESS', ':old': oldToken },
      }),
    );
    logger.warn('idempotency record taken over from an interrupted request');
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) {
      throw new ApiError('idempotency.request.in_progress', 'A request with this Idempotency-Key is still being processed; retry in a few seconds.');
    }
    throw e;
  }
}
