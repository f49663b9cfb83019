import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { accessTable, type Table } from '../db/client';
import { isConditionFailed } from '../db/errors';
import { ApiError } from '../kernel/errors';
import { platformKeys } from './keys';
import { SIGNATURE_WINDOW_SECONDS } from './signature';

export interface SignatureRecord {
  /** False: already accepted under another Idempotency-Key. */
  accepted: boolean;
  /** Whether this call stored the record (else a retry of the same request had). */
  created: boolean;
}

/**
 * Remembers an accepted live signature for as long as its timestamp is
 * accepted. The same signature is accepted again only with the same
 * Idempotency-Key (the client's retry of that request, which the idempotency
 * layer replays); with any other key it is a replayed request: not accepted.
 * The record names the request that stored it, so that this request alone
 * can forget it (forgetSignature).
 */
export async function recordSignature(
  keyId: string,
  signature: string,
  idempotencyKey: string,
  requestId: string,
  nowMs = Date.now(),
  table: Table = accessTable,
): Promise<SignatureRecord> {
  try {
    const r = await table.client.send(
      new PutCommand({
        TableName: table.name(),
        Item: {
          ...platformKeys.signature(keyId, signature),
          idempotency_key: idempotencyKey,
          request_id: requestId,
          // The timestamp may be up to the window old or ahead: remember it for both.
          ttl: Math.floor(nowMs / 1000) + 2 * SIGNATURE_WINDOW_SECONDS + 60,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR idempotency_key = :k',
        ExpressionAttributeValues: { ':k': idempotencyKey },
        ReturnValues: 'ALL_OLD',
      }),
    );
    return { accepted: true, created: !r.Attributes };
  } catch (e) {
    if (isConditionFailed(e)) return { accepted: false, created: false };
    throw e;
  }
}

/** recordSignature's verdict alone. */
export const acceptSignatureOnce = async (keyId: string, signature: string, idempotencyKey: string, requestId: string, nowMs = Date.now()) =>
  (await recordSignature(keyId, signature, idempotencyKey, requestId, nowMs)).accepted;

/**
 * Forgets the record a request stored before it was refused (shared/http/early-claim.ts): only while it is still
 * that request's, never a record a retry of the same request stored since.
 */
export async function forgetSignature(keyId: string, signature: string, requestId: string, table: Table = accessTable): Promise<void> {
  try {
    await table.client.send(
      new DeleteCommand({
        TableName: table.name(),
        Key: platformKeys.signature(keyId, signature),
        ConditionExpression: 'request_id = :r',
        ExpressionAttributeValues: { ':r': requestId },
      }),
    );
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
  }
}

/**
 * The refusal of a version 1 live write whose signature was already accepted under
 * another Idempotency-Key: a replay, or a second request identical to the first in
 * everything version 1 signs (timestamp, method, path, body).
 */
export const signatureReplayed = () =>
  new ApiError(
    'auth.signature.replayed',
    'This signature was already accepted with another Idempotency-Key. Version 1 signing (no X-Signature-Version) accepts a signature once, and two requests with the same method, path and body signed in the same second carry the same signature: the second is refused as a replay, though it changed nothing. Sign with X-Signature-Version: 2, which also signs the Idempotency-Key so two requests never collide; or sign the new request with a later X-Timestamp. A retry of the same operation keeps its Idempotency-Key and gets the stored answer.',
  );
