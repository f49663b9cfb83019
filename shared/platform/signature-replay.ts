import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { accessTable, type Table } from '../db/client';
import { isConditionFailed } from '../db/errors';
import { ApiError } from '../kernel/errors';
import { platformKeys } from './keys';
import { SIGNATURE_WINDOW_SECONDS } from './signature';

/**
 * Remembers an accepted live signature for as long as its timestamp is
 * accepted. The same signature is accepted again only with the same
 * Idempotency-Key (the client's retry of that request, which the idempotency
 * layer replays); with any other key it is a replayed request: false.
 */
export async function acceptSignatureOnce(
  keyId: string,
  signature: string,
  idempotencyKey: string,
  nowMs = Date.now(),
  table: Table = accessTable,
): Promise<boolean> {
  try {
    await table.client.send(
      new PutCommand({
        TableName: table.name(),
        Item: {
          ...platformKeys.signature(keyId, signature),
          idempotency_key: idempotencyKey,
          // The timestamp may be up to the window old or ahead: remember it for both.
          ttl: Math.floor(nowMs / 1000) + 2 * SIGNATURE_WINDOW_SECONDS + 60,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR idempotency_key = :k',
        ExpressionAttributeValues: { ':k': idempotencyKey },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
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
