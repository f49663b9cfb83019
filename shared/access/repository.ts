import { randomUUID } from 'node:crypto';
import { BatchGetCommand, type BatchGetCommandOutput, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { ddb } from '../aws';
import { queryAll, queryPage } from '../db';
import { accessTableName } from '../config';
import { formatKey, hashSecret, newKeyPrefix, newKeySecret, type Env } from './keys';
import { accessKeys, type ApiKeyRecord, type Member, type Partner } from './model';
import type { Role } from './roles';

export class AccessError extends Error {
  constructor(
    readonly kind: 'not_found' | 'conflict' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}

export interface NewMember {
  email: string;
  role: Role;
  first_name?: string;
  last_name?: string;
}

export interface IssuedKey {
  key_id: string;
  key: string;
  env: Env;
}

const strip = <T extends Record<string, unknown>>(item: T | undefined) => {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, type: _t, ...rest } = item;
  return rest;
};

const keysPartition = (partnerId: string, env: Env) => `PARTNER#${partnerId}#KEYS#${env}`;

function newKeyItem(partnerId: string, memberId: string, env: Env, now: string) {
  const keyId = newKeyPrefix();
  const secret = newKeySecret();
  const record: ApiKeyRecord = { key_id: keyId, partner_id: partnerId, member_id: memberId, env, secret_hash: hashSecret(secret), created_at: now };
  return {
    issued: { key_id: keyId, key: formatKey(env, keyId, secret), env } satisfies IssuedKey,
    item: { ...accessKeys.apiKey(keyId), type: 'api_key', gsi1pk: keysPartition(partnerId, env), gsi1sk: `${now}#${keyId}`, ...record },
  };
}

function memberItem(partnerId: string, m: NewMember, now: string): Member & Record<string, unknown> {
  const member: Member = {
    member_id: randomUUID(),
    partner_id: partnerId,
    email: m.email,
    role: m.role,
    enabled: true,
    first_name: m.first_name ?? '',
    last_name: m.last_name ?? '',
    created_at: now,
  };
  return { ...accessKeys.member(partnerId, member.member_id), type: 'member', ...member };
}

const isConditionFailure = (e: unknown) =>
  e instanceof ConditionalCheckFailedException ||
  (e instanceof TransactionCanceledException && (e.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed'));

/** Partners, console members and API keys in the access table. */
export const accessRepository = {
  /** `sandboxCatalog`: the snapshot the new tenant's sandbox starts on (the current one), so its clone exists at once. */
  async createPartner(input: { name: string; email?: string; now?: Date; sandboxCatalog?: string }) {
    const now = (input.now ?? new Date()).toISOString();
    const partnerId = randomUUID();
    const partner: Partner = { partner_id: partnerId, name: input.name, email: input.email, admin_count: 1, created_at: now, sandbox_catalog: input.sandboxCatalog };
    const email = input.email ?? `admin+${partnerId.slice(0, 8)}@example.invalid`;
    const member = memberItem(partnerId, { email, role: 'PARTNER_ADMIN', first_name: 'Admin', last_name: input.name }, now);
    const live = newKeyItem(partnerId, member.member_id, 'live', now);
    const test = newKeyItem(partnerId, member.member_id, 'test', now);
    const TableName = accessTableName();
    await ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName, Item: { ...accessKeys.partner(partnerId), type: 'partner', gsi1pk: 'PARTNERS', gsi1sk: `${now}#${partnerId}`, ...partner }, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Put: { TableName, Item: member, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Put: { TableName, Item: { ...accessKeys.memberEmail(partnerId, email), type: 'member_email', member_id: member.member_id } } },
          { Put: { TableName, Item: live.item, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Put: { TableName, Item: test.item, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
    return { partner, member: strip(member) as unknown as Member, liveKey: live.issued, testKey: test.issued };
  },

  async addMember(partnerId: string, m: NewMember): Promise<Member> {
    const now = new Date().toISOString();
    const item = memberItem(partnerId, m, now);
    const TableName = accessTableName();
    try {
      await ddb.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName,
                Key: accessKeys.partner(partnerId),
                ConditionExpression: 'attribute_exists(pk)',
                UpdateExpression: 'ADD admin_count :n',
                ExpressionAttributeValues: { ':n': m.role === 'PARTNER_ADMIN' ? 1 : 0 },
              },
            },
            { Put: { TableName, Item: { ...accessKeys.memberEmail(partnerId, m.email), type: 'member_email', member_id: item.member_id }, ConditionExpression: 'attribute_not_exists(pk)' } },
            { Put: { TableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      );
    } catch (e) {
      if (e instanceof TransactionCanceledException) {
        const [partner, email] = e.CancellationReasons ?? [];
        if (partner?.Code === 'ConditionalCheckFailed') throw new AccessError('not_found', `partner ${partnerId} does not exist`);
        if (email?.Code === 'ConditionalCheckFailed') throw new AccessError('conflict', `a member with e-mail ${m.email} already exists in partner ${partnerId}`);
      }
      throw e;
    }
    return strip(item) as unknown as Member;
  },

  async issueKey(partnerId: string, memberId: string, env: Env, opts: { expiresAt?: string; issuedBy?: string } = {}): Promise<IssuedKey & { record: ApiKeyRecord }> {
    const now = new Date().toISOString();
    const k = newKeyItem(partnerId, memberId, env, now);
    if (opts.expiresAt) (k.item as ApiKeyRecord).expires_at = opts.expiresAt;
    if (opts.issuedBy) (k.item as ApiKeyRecord).issued_by = opts.issuedBy;
    const TableName = accessTableName();
    try {
      await ddb.send(
        new TransactWriteCommand({
          TransactItems: [
            { ConditionCheck: { TableName, Key: accessKeys.member(partnerId, memberId), ConditionExpression: 'attribute_exists(pk) AND enabled = :t', ExpressionAttributeValues: { ':t': true } } },
            { Put: { TableName, Item: k.item, ConditionExpression: 'attribute_not_exists(pk)' } },
          ],
        }),
      );
    } catch (e) {
      if (isConditionFailure(e)) throw new AccessError('not_found', `member ${memberId} does not exist in partner ${partnerId} or is disabled`);
      throw e;
    }
    return { ...k.issued, record: strip(k.item) as unknown as ApiKeyRecord };
  },

  /** Revokes a key at once; with `owner`, only if it belongs to that partner and environment. */
  async revokeKey(keyId: string, owner?: { partnerId: string; env: Env }, now = new Date()): Promise<ApiKeyRecord> {
    try {
      const r = await ddb.send(
        new UpdateCommand({
          TableName: accessTableName(),
          Key: accessKeys.apiKey(keyId),
          ConditionExpression: owner ? 'attribute_exists(pk) AND partner_id = :p AND env = :e' : 'attribute_exists(pk)',
          UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
          ExpressionAttributeValues: { ':now': now.toISOString(), ...(owner ? { ':p': owner.partnerId, ':e': owner.env } : {}) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return strip(r.Attributes) as unknown as ApiKeyRecord;
    } catch (e) {
      if (isConditionFailure(e)) throw new AccessError('not_found', `key ${keyId} does not exist`);
      throw e;
    }
  },

  /** Keys of one partner and environment, most recent first. */
  async listKeys(partnerId: string, env: Env, limit: number, after?: string) {
    const pk = keysPartition(partnerId, env);
    const { items, hasMore } = await queryPage(
      { TableName: accessTableName(), IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :p', ExpressionAttributeValues: { ':p': pk }, ScanIndexForward: false },
      limit,
      after ? { gsi1pk: pk, gsi1sk: after, ...accessKeys.apiKey(after.split('#')[1]!) } : undefined,
    );
    return { items: items.map((i) => strip(i) as unknown as ApiKeyRecord), next: hasMore ? (items.at(-1)!.gsi1sk as string) : undefined };
  },

  async getMember(partnerId: string, memberId: string): Promise<Member | undefined> {
    const r = await ddb.send(new GetCommand({ TableName: accessTableName(), Key: accessKeys.member(partnerId, memberId), ConsistentRead: true }));
    return strip(r.Item) as unknown as Member | undefined;
  },

  /**
   * Changes a member's role in one transaction that keeps the partner's count
   * of enabled admins (never below 1) and re-checks that the caller is still
   * an enabled admin. Retries when a concurrent change moved the member.
   */
  async changeRole(partnerId: string, callerId: string, memberId: string, role: Role): Promise<Member> {
    const TableName = accessTableName();
    for (let attempt = 0; attempt < 5; attempt++) {
      const member = await this.getMember(partnerId, memberId);
      if (!member) throw new AccessError('not_found', `member ${memberId} does not exist`);
      if (member.role === role) return member;
      const now = new Date().toISOString();
      const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [
        {
          Update: {
            TableName,
            Key: accessKeys.member(partnerId, memberId),
            UpdateExpression: 'SET #r = :new, updated_at = :now',
            // Also pinned to the enabled flag the admin count was computed from.
            ConditionExpression: '#r = :old AND enabled = :enabled',
            ExpressionAttributeNames: { '#r': 'role' },
            ExpressionAttributeValues: { ':new': role, ':old': member.role, ':now': now, ':enabled': member.enabled },
          },
        },
        {
          ConditionCheck: {
            TableName,
            Key: accessKeys.member(partnerId, callerId),
            ConditionExpression: '#r = :admin AND enabled = :t',
            ExpressionAttributeNames: { '#r': 'role' },
            ExpressionAttributeValues: { ':admin': 'PARTNER_ADMIN', ':t': true },
          },
        },
      ];
      const delta = !member.enabled ? 0 : member.role === 'PARTNER_ADMIN' ? -1 : role === 'PARTNER_ADMIN' ? 1 : 0;
      if (delta !== 0) {
        items.push({
          Update: {
            TableName,
            Key: accessKeys.partner(partnerId),
            UpdateExpression: 'ADD admin_count :d',
            ConditionExpression: delta < 0 ? 'admin_count > :one' : 'attribute_exists(pk)',
            ExpressionAttributeValues: delta < 0 ? { ':d': -1, ':one': 1 } : { ':d': 1 },
          },
        });
      }
      try {
        await ddb.send(new TransactWriteCommand({ TransactItems: items }));
        return { ...member, role };
      } catch (e) {
        if (!(e instanceof TransactionCanceledException)) throw e;
        const [memberReason, callerReason, partnerReason] = e.CancellationReasons ?? [];
        if (partnerReason?.Code === 'ConditionalCheckFailed') throw new AccessError('conflict', 'last_admin');
        if (callerReason?.Code === 'ConditionalCheckFailed') throw new AccessError('invalid', 'caller_not_admin');
        if (memberReason?.Code === 'ConditionalCheckFailed' || (e.CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict')) {
          await new Promise((r) => setTimeout(r, 20 + Math.random() * 50 * (attempt + 1)));
          continue;
        }
        throw e;
      }
    }
    throw new Error('role change kept conflicting with concurrent changes');
  },

  /** Enables or disables a member; disabling the last enabled admin is refused. */
  async setMemberEnabled(partnerId: string, memberId: string, enabled: boolean): Promise<Member> {
    const member = await this.getMember(partnerId, memberId);
    if (!member) throw new AccessError('not_found', `member ${memberId} does not exist in partner ${partnerId}`);
    if (member.enabled === enabled) return member;
    const TableName = accessTableName();
    const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [
      {
        Update: {
          TableName,
          Key: accessKeys.member(partnerId, memberId),
          UpdateExpression: 'SET enabled = :e',
          ConditionExpression: 'enabled = :was AND #r = :role',
          ExpressionAttributeNames: { '#r': 'role' },
          ExpressionAttributeValues: { ':e': enabled, ':was': member.enabled, ':role': member.role },
        },
      },
    ];
    if (member.role === 'PARTNER_ADMIN') {
      items.push({
        Update: {
          TableName,
          Key: accessKeys.partner(partnerId),
          UpdateExpression: 'ADD admin_count :d',
          ConditionExpression: enabled ? 'attribute_exists(pk)' : 'admin_count > :one',
          ExpressionAttributeValues: enabled ? { ':d': 1 } : { ':d': -1, ':one': 1 },
        },
      });
    }
    try {
      await ddb.send(new TransactWriteCommand({ TransactItems: items }));
    } catch (e) {
      if (isConditionFailure(e)) throw new AccessError('conflict', `member ${memberId} changed concurrently or is the last enabled PARTNER_ADMIN`);
      throw e;
    }
    return { ...member, enabled };
  },

  async listPartners(): Promise<Partner[]> {
    const items = await queryAll({ TableName: accessTableName(), IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :p', ExpressionAttributeValues: { ':p': 'PARTNERS' } });
    return items.map((i) => strip(i) as unknown as Partner);
  },

  async getPartner(partnerId: string): Promise<Partner | undefined> {
    const r = await ddb.send(new GetCommand({ TableName: accessTableName(), Key: accessKeys.partner(partnerId) }));
    return strip(r.Item) as unknown as Partner | undefined;
  },

  async listMembers(partnerId: string): Promise<Member[]> {
    const r = await ddb.send(
      new QueryCommand({
        TableName: accessTableName(),
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :m)',
        ExpressionAttributeValues: { ':p': `PARTNER#${partnerId}`, ':m': 'MEMBER#' },
      }),
    );
    return (r.Items ?? []).map((i) => strip(i) as unknown as Member);
  },

  /** Strongly consistent: a revoked key stops working on the very next request. */
  async getKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const r = await ddb.send(new GetCommand({ TableName: accessTableName(), Key: accessKeys.apiKey(keyId), ConsistentRead: true }));
    return strip(r.Item) as unknown as ApiKeyRecord | undefined;
  },

  /** Member and partner in one round trip (BatchGetItem, strongly consistent: role changes apply at once). */
  async getMemberAndPartner(partnerId: string, memberId: string): Promise<{ member?: Member; partner?: Partner }> {
    const TableName = accessTableName();
    const items: Record<string, unknown>[] = [];
    let Keys: Record<string, unknown>[] | undefined = [accessKeys.member(partnerId, memberId), accessKeys.partner(partnerId)];
    for (let attempt = 0; Keys?.length; attempt++) {
      if (attempt > 5) throw new Error('BatchGetItem kept returning unprocessed keys');
      if (attempt > 0) await new Promise((r) => setTimeout(r, 2 ** attempt * 10));
      const r: BatchGetCommandOutput = await ddb.send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys, ConsistentRead: true } } }));
      items.push(...(r.Responses?.[TableName] ?? []));
      Keys = r.UnprocessedKeys?.[TableName]?.Keys;
    }
    return {
      member: strip(items.find((i) => i.sk === `MEMBER#${memberId}`)) as unknown as Member | undefined,
      partner: strip(items.find((i) => i.sk === 'PARTNER')) as unknown as Partner | undefined,
    };
  },

  async setRateLimit(partnerId: string, perMinute: number | null): Promise<Partner> {
    try {
      const r = await ddb.send(
        new UpdateCommand({
          TableName: accessTableName(),
          Key: accessKeys.partner(partnerId),
          ConditionExpression: 'attribute_exists(pk)',
          UpdateExpression: perMinute === null ? 'REMOVE rate_limit_per_minute' : 'SET rate_limit_per_minute = :n',
          ExpressionAttributeValues: perMinute === null ? undefined : { ':n': perMinute },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return strip(r.Attributes) as unknown as Partner;
    } catch (e) {
      if (isConditionFailure(e)) throw new AccessError('not_found', `partner ${partnerId} does not exist`);
      throw e;
    }
  },
};

export type AccessRepository = typeof accessRepository;
