import { randomBytes } from 'node:crypto';
import { dataTable, type Seal, transact, unsealed } from '../db/client';
import { backoff } from '../db/retry';
import { ApiError, notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import { webhookKeys } from './keys';
import type { EndpointRecord } from './model';
import { webhookStore } from './store';
import { openRotation } from './views';

/**
 * A signing secret: `whsec_` and 32 random bytes in standard base64, the convention the Standard
 * Webhooks libraries decode (endpoints created before it have base64url: rotating gives them this).
 */
export const mintSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** The secrets an attempt is signed with now: the current one, and the previous one while its overlap lasts. */
export function signingSecrets(e: EndpointRecord, now = Date.now()): { secret: string; previousSecret?: string } {
  return openRotation(e, now) ? { secret: e.signing_secret, previousSecret: e.previous_signing_secret! } : { secret: e.signing_secret };
}

/** A rotation that loses this many times to concurrent rotations of the endpoint answers 409 webhook.secret.rotation_conflict. */
export const MAX_ROTATION_ATTEMPTS = 6;

/**
 * Rotates an endpoint's signing secret. With an overlap, the old secret keeps signing beside the new
 * one until it ends, and a second rotation meanwhile is refused (409), so no receiver is left with a
 * secret that nothing signs with. An overlap of 0 revokes every older secret at once, open rotation
 * or not. The write is conditional on the secret read, so two concurrent rotations cannot both win.
 */
export async function rotateSigningSecret(
  t: Tenant,
  id: string,
  input: { overlap_seconds: number },
  seal: Seal<EndpointRecord> = unsealed,
  now = new Date(),
): Promise<EndpointRecord> {
  for (let attempt = 0; ; attempt++) {
    const current = await webhookStore.getEndpoint(t.partnerId, t.env, id);
    if (!current) throw notFound('Webhook endpoint', id);
    if (input.overlap_seconds > 0 && openRotation(current, now.getTime()))
      throw new ApiError(
        'webhook.secret.rotation_open',
        `The previous rotation of this endpoint's secret is still open until ${current.previous_secret_expires_at}. Wait until then, or rotate with overlap_seconds 0 to revoke every older secret now.`,
        { previous_secret_expires_at: current.previous_secret_expires_at },
      );
    const overlap = input.overlap_seconds > 0;
    const next: EndpointRecord = {
      ...current,
      signing_secret: mintSigningSecret(),
      previous_signing_secret: overlap ? current.signing_secret : null,
      previous_secret_expires_at: overlap ? new Date(now.getTime() + input.overlap_seconds * 1000).toISOString() : null,
      updated_at: now.toISOString(),
    };
    const cancelled = await transact(
      dataTable.client,
      {
        endpoint: {
          Update: {
            TableName: dataTable.name(),
            Key: webhookKeys.endpoint(t.partnerId, t.env, id),
            UpdateExpression: 'SET signing_secret = :s, previous_signing_secret = :ps, previous_secret_expires_at = :pe, updated_at = :u',
            ConditionExpression: 'signing_secret = :read',
            ExpressionAttributeValues: {
              ':s': next.signing_secret,
              ':ps': next.previous_signing_secret,
              ':pe': next.previous_secret_expires_at,
              ':u': next.updated_at,
              ':read': current.signing_secret,
            },
          },
        },
      },
      [],
      seal.items(next),
    );
    if (!cancelled) return next;
    // Deleted or rotated meanwhile: read again (a rotation that won makes this one a 409 or a revoke).
    if (attempt + 1 >= MAX_ROTATION_ATTEMPTS) {
      throw new ApiError(
        'webhook.secret.rotation_conflict',
        "Other rotations of this endpoint's secret won at the same moment; nothing was changed. Retry shortly with the same Idempotency-Key.",
        { attempts: MAX_ROTATION_ATTEMPTS },
        { 'retry-after': '1' },
      );
    }
    await backoff(attempt);
  }
}
