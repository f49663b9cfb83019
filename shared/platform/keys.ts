import type { Env } from '../kernel/tenant';

/**
 * Keys of the records the request pipeline itself keeps in the access table
 * (docs/architecture.md, "Data model and access patterns": rate-limit counter, idempotency record, audit trail,
 * service configuration).
 */
export const platformKeys = {
  /** One atomic counter per key and fixed one-minute window (TTL). */
  rateCounter: (keyId: string, windowStart: number) => ({ pk: rateCounters(keyId), sk: String(windowStart) }),
  /** A key's counters, one per window it was used in: the newest (highest sort key) says when it was last used. */
  rateCounters: (keyId: string) => rateCounters(keyId),
  /** One record per (partner, environment, Idempotency-Key) (TTL 24 h). */
  idempotency: (partnerId: string, env: Env, idempotencyKey: string) => ({ pk: `IDEM#${partnerId}#${env}#${idempotencyKey}`, sk: 'IDEM' }),
  /** The audit trail of a partner and environment, newest first by sort key (TTL 400 days). */
  auditPartition: (partnerId: string, env: Env) => `AUDIT#${partnerId}#${env}`,
  auditSort: (occurredAt: string, requestId: string) => `${occurredAt}#${requestId}`,
  /** Failed authentications of one key id or one source address, per one-minute window (TTL). */
  authFailures: (subject: { keyId: string } | { address: string }, windowStart: number) => ({
    pk: 'keyId' in subject ? `AUTHFAIL#key#${subject.keyId}` : `AUTHFAIL#ip#${subject.address}`,
    sk: String(windowStart),
  }),
  /** An accepted live signature, remembered for its timestamp window with the Idempotency-Key it came with (TTL). */
  signature: (keyId: string, signature: string) => ({ pk: `SIG#${keyId}#${signature}`, sk: 'SIG' }),
  /** Service-wide settings, e.g. the cursor-signing key. */
  config: (name: string) => ({ pk: 'CONFIG', sk: name }),
};

function rateCounters(keyId: string) {
  return `RATE#${keyId}`;
}

/** The pipeline's partitions in the access table, as dynamodb:LeadingKeys patterns (the route table's `dynamo`, shared/db/grants.ts). */
export const platformPartitions = {
  rateCounters: 'RATE#*',
  authFailures: 'AUTHFAIL#*',
  signatures: 'SIG#*',
  idempotency: 'IDEM#*',
  audit: 'AUDIT#*',
  config: 'CONFIG',
};
