import type { Env } from '../kernel/tenant';

/**
 * Keys of partners, console members and API keys in the access table
 * (docs/architecture.md, "Data model and access patterns", rows "key by prefix" to "keys of a partner").
 */
export const accessKeys = {
  /** An API key by its public key id: what every request reads first. */
  apiKey: (keyId: string) => ({ pk: `KEY#${keyId}`, sk: 'KEY' }),
  /** The partner record, its members and their e-mail uniqueness share one partition. */
  partner: (partnerId: string) => ({ pk: `PARTNER#${partnerId}`, sk: 'PARTNER' }),
  member: (partnerId: string, memberId: string) => ({ pk: `PARTNER#${partnerId}`, sk: `MEMBER#${memberId}` }),
  members: (partnerId: string) => ({ pk: `PARTNER#${partnerId}`, skPrefix: 'MEMBER#' }),
  /** A console user (Cognito `sub`) -> its partner and member. */
  identity: (sub: string) => ({ pk: `IDENTITY#${sub}`, sk: 'IDENTITY' }),
  memberEmail: (partnerId: string, email: string) => ({ pk: `PARTNER#${partnerId}`, sk: `EMAIL#${email.toLowerCase()}` }),
  /** An invitation being sent to an e-mail address: what its e-mail names (the CustomMessage trigger reads it). */
  invitation: (email: string) => ({ pk: `INVITATION#${email.toLowerCase()}`, sk: 'INVITATION' }),
  /** gsi1: every partner (operators' list), oldest first. */
  partnersIndex: (createdAt: string, partnerId: string) => ({ gsi1pk: 'PARTNERS', gsi1sk: `${createdAt}#${partnerId}` }),
  partnersPartition: 'PARTNERS',
  /**
   * The keys of a partner and environment, newest first: one row per key (its id, member and issuer, which
   * never change), put in the key's own transaction, so the list reads its own writes (strongly
   * consistent); the list reads each key's record for the rest (its revocation).
   */
  keyRowsPartition: (partnerId: string, env: Env) => keysPartition(partnerId, env),
  keyRow: (partnerId: string, env: Env, createdAt: string, keyId: string) => ({ pk: keysPartition(partnerId, env), sk: `${createdAt}#${keyId}` }),
  /** gsi1, before the key rows: the keys of a partner and environment (what data:list-rows moves to rows, and takes out of the index). */
  legacyKeysIndexPartition: (partnerId: string, env: Env) => keysPartition(partnerId, env),
};

/**
 * The access table's partitions, as dynamodb:LeadingKeys patterns (the route table's `dynamo`, shared/db/grants.ts): the API keys, the partners (their members, e-mail items and key
 * rows share the partner's partition: `PARTNER#<id>`, `PARTNER#<id>#KEYS#<env>`), the console users' identity links.
 */
export const accessPartitions = {
  key: 'KEY#*',
  partner: 'PARTNER#*',
  identity: 'IDENTITY#*',
  invitation: 'INVITATION#*',
};

/** The partners' items as dynamodb:LeadingKeys patterns (the sandbox refresh moves each one's catalog pointer). */
export const PARTNER_LEADING_KEYS = [accessPartitions.partner];

/** The invitations being sent, as dynamodb:LeadingKeys patterns: all the invitation e-mail's trigger may read. */
export const INVITATION_LEADING_KEYS = [accessPartitions.invitation];

function keysPartition(partnerId: string, env: Env) {
  return `PARTNER#${partnerId}#KEYS#${env}`;
}
