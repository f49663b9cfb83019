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

/** The refusal of a live write whose signature was already accepted under another Idempotency-Key. */
export const signatureReplayed = () =>
  new ApiError(
    'auth.signature.replayed',
    'This signature was already accepted with another Idempotency-Key: a new request needs a new signature (a new X-Timestamp). A retry keeps its Idempotency-Key.',
  );
