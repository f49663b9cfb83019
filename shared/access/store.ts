import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { accessTable, type Seal, type Table, type TransactItem, transact, unsealed } from '../db/client';
import { isConditionFailed, type TransactionCancelled } from '../db/errors';
import { batchGet, newestFirst, queryAll } from '../db/query';
import { backoff } from '../db/retry';
import { moveIndexToRows } from '../db/rows';
import type { Env } from '../kernel/tenant';
import { lastUsedAt } from '../platform/rate-limit';
import { formatKey, hashSecret, newKeyPrefix, newKeySecret } from './api-key';
import { accessKeys } from './keys';
import type { ApiKeyInUse, ApiKeyRecord, IdentityLink, Member, Partner } from './model';
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
  /** The console user's id (Cognito `sub`): the member's id, and its identity link. */
  identity_id?: string;
}

export interface IssuedKey {
  key_id: string;
  key: string;
  env: Env;
}

const strip = <T>(item: Record<string, unknown> | undefined): T | undefined => {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, type: _t, ...rest } = item;
  return rest as T;
};

export interface KeyOptions {
  expiresAt?: string;
  issuedBy?: string;
  name?: string;
}

function newKeyItem(partnerId: string, memberId: string, env: Env, now: string, opts: KeyOptions = {}) {
  const keyId = newKeyPrefix();
  const secret = newKeySecret();
  const record: ApiKeyRecord = {
    key_id: keyId,
    partner_id: partnerId,
    member_id: memberId,
    env,
    secret_hash: hashSecret(secret),
    created_at: now,
    ...(opts.expiresAt ? { expires_at: opts.expiresAt } : {}),
    ...(opts.issuedBy ? { issued_by: opts.issuedBy } : {}),
    ...(opts.name ? { name: opts.name } : {}),
  };
  return {
    issued: { key_id: keyId, key: formatKey(env, keyId, secret), env } satisfies IssuedKey,
    record,
    item: { ...accessKeys.apiKey(keyId), type: 'api_key', ...record },
    row: keyRowItem(record),
  };
}

/** A key's row in the partner's list of keys: what never changes, its name (which renameKey changes with the key), and what unrevokedKeys filters on. */
function keyRowItem(k: ApiKeyRecord) {
  return {
    ...accessKeys.keyRow(k.partner_id, k.env, k.created_at, k.key_id),
    type: 'api_key_row',
    key_id: k.key_id,
    member_id: k.member_id,
    ...(k.issued_by ? { issued_by: k.issued_by } : {}),
    ...(k.name ? { name: k.name } : {}),
  };
}

function memberItem(partnerId: string, m: NewMember, now: string) {
  const member: Member = {
    member_id: m.identity_id ?? randomUUID(),
    partner_id: partnerId,
    email: m.email,
    role: m.role,
    enabled: true,
    first_name: m.first_name ?? '',
    last_name: m.last_name ?? '',
    created_at: now,
    ...(m.identity_id ? { identity_id: m.identity_id } : {}),
  };
  return { member, item: { ...accessKeys.member(partnerId, member.member_id), type: 'member', ...member } };
}

/** The identity link of a console user: token `sub` -> partner and member (every console request reads it). */
function identityItem(sub: string, partnerId: string, memberId: string) {
  return { ...accessKeys.identity(sub), type: 'identity', identity_id: sub, partner_id: partnerId, member_id: memberId };
}
const identityPut = (TableName: string, m: Member) =>
  m.identity_id
    ? { identity: { Put: { TableName, Item: identityItem(m.identity_id, m.partner_id, m.member_id), ConditionExpression: 'attribute_not_exists(pk)' } } }
    : {};

/** Partners, console members and API keys in the access table. */
export function makeAccessStore(table: Table = accessTable) {
  const TableName = () => table.name();
  /** One change to an existing partner record; the record as changed. */
  const updatePartner = async (
    partnerId: string,
    change: { UpdateExpression: string; ExpressionAttributeValues?: Record<string, unknown> },
  ): Promise<Partner> => {
    try {
      const r = await table.client.send(
        new UpdateCommand({
          TableName: TableName(),
          Key: accessKeys.partner(partnerId),
          ConditionExpression: 'attribute_exists(pk)',
          ...change,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return strip<Partner>(r.Attributes)!;
    } catch (e) {
      if (isConditionFailed(e)) throw new AccessError('not_found', `partner ${partnerId} does not exist`);
      throw e;
    }
  };
  /** The key records of key rows, in the rows' order (strongly consistent). */
  const keysOf = async (rows: Record<string, unknown>[]): Promise<ApiKeyRecord[]> => {
    const found = new Map<string, ApiKeyRecord>();
    for (let i = 0; i < rows.length; i += 100) {
      const items = await batchGet(
        table,
        rows.slice(i, i + 100).map((r) => accessKeys.apiKey(r.key_id as string)),
      );
      for (const item of items) found.set(item.key_id as string, strip<ApiKeyRecord>(item)!);
    }
    return rows.map((r) => found.get(r.key_id as string)).filter((k): k is ApiKeyRecord => k !== undefined);
  };
  /**
   * One change to a key (its revocation, its name), with what else commits with it: the key read with its last use
   * (found only for `owner` when given), written pinned to the revocation state read, so the answer is what was
   * written; read again and retried when a concurrent change moved it.
   */
  const changeKey = async (
    keyId: string,
    owner: { partnerId: string; env: Env } | undefined,
    what: string,
    seal: Seal<ApiKeyInUse>,
    change: (key: ApiKeyRecord) => {
      changed: ApiKeyRecord;
      update: { UpdateExpression: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> };
      also?: Record<string, TransactItem>;
    },
  ): Promise<ApiKeyInUse> => {
    for (let attempt = 0; ; attempt++) {
      // Its last use is read alongside the key: no stage of its own.
      const [key, lastUsed] = await Promise.all([store.getKey(keyId), lastUsedAt(keyId, table)]);
      if (!key || (owner && (key.partner_id !== owner.partnerId || key.env !== owner.env))) throw new AccessError('not_found', `key ${keyId} does not exist`);
      const { changed, update, also } = change(key);
      const result: ApiKeyInUse = { ...changed, ...(lastUsed ? { last_used_at: lastUsed } : {}) };
      const cancelled = await transact(
        table.client,
        {
          key: {
            Update: {
              TableName: TableName(),
              Key: accessKeys.apiKey(keyId),
              ConditionExpression: key.revoked_at ? 'revoked_at = :was' : 'attribute_exists(pk) AND attribute_not_exists(revoked_at)',
              ...update,
              ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ...(key.revoked_at ? { ':was': key.revoked_at } : {}) },
            },
          },
          ...also,
        },
        [],
        seal.items(result),
      );
      if (!cancelled) return result;
      if (attempt >= 3) throw new Error(`key ${what} was cancelled (${cancelled.codes.join(', ')})`);
    }
  };
  const store = {
    /** `sandboxCatalog`: the snapshot the new tenant's sandbox starts on (the current one), so its clone exists at once. */
    async createPartner(input: { name: string; email?: string; now?: Date; sandboxCatalog?: string; adminIdentityId?: string; adminEmail?: string }) {
      const now = (input.now ?? new Date()).toISOString();
      const partnerId = randomUUID();
      const partner: Partner = {
        partner_id: partnerId,
        name: input.name,
        email: input.email,
        admin_count: 1,
        created_at: now,
        sandbox_catalog: input.sandboxCatalog,
      };
      const email = input.adminEmail ?? input.email ?? `admin+${partnerId.slice(0, 8)}@example.invalid`;
      const { member, item } = memberItem(
        partnerId,
        { email, role: 'PARTNER_ADMIN', first_name: 'Admin', last_name: input.name, ...(input.adminIdentityId ? { identity_id: input.adminIdentityId } : {}) },
        now,
      );
      const live = newKeyItem(partnerId, member.member_id, 'live', now);
      const test = newKeyItem(partnerId, member.member_id, 'test', now);
      const cancelled = await transact(table.client, {
        partner: {
          Put: {
            TableName: TableName(),
            Item: { ...accessKeys.partner(partnerId), type: 'partner', ...accessKeys.partnersIndex(now, partnerId), ...partner },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        member: { Put: { TableName: TableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
        email: { Put: { TableName: TableName(), Item: { ...accessKeys.memberEmail(partnerId, email), type: 'member_email', member_id: member.member_id } } },
        ...identityPut(TableName(), member),
        live: { Put: { TableName: TableName(), Item: live.item, ConditionExpression: 'attribute_not_exists(pk)' } },
        liveRow: { Put: { TableName: TableName(), Item: live.row, ConditionExpression: 'attribute_not_exists(pk)' } },
        test: { Put: { TableName: TableName(), Item: test.item, ConditionExpression: 'attribute_not_exists(pk)' } },
        testRow: { Put: { TableName: TableName(), Item: test.row, ConditionExpression: 'attribute_not_exists(pk)' } },
      });
      if (cancelled) throw new Error(`partner creation was cancelled (${cancelled.codes.join(', ')})`);
      return { partner, member, liveKey: live.issued, testKey: test.issued };
    },

    /**
     * Adds a member (its e-mail unique in the partner) and, for a console user, its identity link.
     * `callerId`: the member who invites, re-checked as an enabled PARTNER_ADMIN in the same transaction.
     */
    async addMember(partnerId: string, m: NewMember, opts: MemberChangeOptions = {}): Promise<Member> {
      const { member, item } = memberItem(partnerId, m, new Date().toISOString());
      const cancelled = await transact(
        table.client,
        {
          partner: {
            Update: {
              TableName: TableName(),
              Key: accessKeys.partner(partnerId),
              ConditionExpression: 'attribute_exists(pk)',
              UpdateExpression: 'ADD admin_count :n',
              ExpressionAttributeValues: { ':n': m.role === 'PARTNER_ADMIN' ? 1 : 0 },
            },
          },
          email: {
            Put: {
              TableName: TableName(),
              Item: { ...accessKeys.memberEmail(partnerId, m.email), type: 'member_email', member_id: member.member_id },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          member: { Put: { TableName: TableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
          ...identityPut(TableName(), member),
          ...callerCheck(TableName(), partnerId, opts.callerId),
        },
        [],
        sealOf(opts).items(member),
      );
      if (cancelled?.failed('partner')) throw new AccessError('not_found', `partner ${partnerId} does not exist`);
      if (cancelled?.failed('email')) throw new AccessError('conflict', `a member with e-mail ${m.email} already exists in partner ${partnerId}`);
      if (cancelled?.failed('caller')) throw callerNotAdmin();
      if (cancelled) throw new Error(`member creation was cancelled (${cancelled.codes.join(', ')})`);
      return member;
    },

    /** The member of the partner with this e-mail (case-insensitive), through its e-mail item. */
    async getMemberByEmail(partnerId: string, email: string): Promise<Member | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: accessKeys.memberEmail(partnerId, email), ConsistentRead: true }));
      const memberId = r.Item?.member_id as string | undefined;
      return memberId ? store.getMember(partnerId, memberId) : undefined;
    },

    async issueKey(
      partnerId: string,
      memberId: string,
      env: Env,
      opts: KeyOptions = {},
      seal: Seal<IssuedKey & { record: ApiKeyRecord }> = unsealed,
    ): Promise<IssuedKey & { record: ApiKeyRecord }> {
      const k = newKeyItem(partnerId, memberId, env, new Date().toISOString(), opts);
      const result = { ...k.issued, record: k.record };
      const cancelled = await transact(
        table.client,
        {
          member: {
            ConditionCheck: {
              TableName: TableName(),
              Key: accessKeys.member(partnerId, memberId),
              ConditionExpression: 'attribute_exists(pk) AND enabled = :t',
              ExpressionAttributeValues: { ':t': true },
            },
          },
          key: { Put: { TableName: TableName(), Item: k.item, ConditionExpression: 'attribute_not_exists(pk)' } },
          row: { Put: { TableName: TableName(), Item: k.row, ConditionExpression: 'attribute_not_exists(pk)' } },
        },
        [],
        seal.items(result),
      );
      if (cancelled?.failed('member')) throw new AccessError('not_found', `member ${memberId} does not exist in partner ${partnerId} or is disabled`);
      if (cancelled) throw new Error(`key issue was cancelled (${cancelled.codes.join(', ')})`);
      return result;
    },

    /**
     * Revokes a key at once; with `owner`, only if it belongs to that partner
     * and environment. Revoking a revoked key keeps its first revocation time.
     */
    async revokeKey(keyId: string, owner?: { partnerId: string; env: Env }, seal: Seal<ApiKeyInUse> = unsealed, now = new Date()): Promise<ApiKeyInUse> {
      return changeKey(keyId, owner, 'revocation', seal, (key) => {
        const at = key.revoked_at ?? now.toISOString();
        return { changed: { ...key, revoked_at: at }, update: { UpdateExpression: 'SET revoked_at = :at', ExpressionAttributeValues: { ':at': at } } };
      });
    },

    /** Renames a key of the partner and environment: the key and its list row (which shows the name) in one transaction. */
    async renameKey(keyId: string, owner: { partnerId: string; env: Env }, name: string, seal: Seal<ApiKeyInUse> = unsealed): Promise<ApiKeyInUse> {
      return changeKey(keyId, owner, 'rename', seal, (key) => ({
        changed: { ...key, name },
        update: { UpdateExpression: 'SET #n = :n', ExpressionAttributeNames: { '#n': 'name' }, ExpressionAttributeValues: { ':n': name } },
        // The row as the renamed record makes it (a key from before the rows gets its row here, as data:list-rows gives it).
        also: { row: { Put: { TableName: TableName(), Item: keyRowItem({ ...key, name }) } } },
      }));
    },

    /** Keys listed through gsi1 before their rows: their rows, and out of the index (data:list-rows). */
    moveKeysToRows(partnerId: string, env: Env): Promise<number> {
      return moveIndexToRows(table, {
        index: 'gsi1',
        partition: accessKeys.legacyKeysIndexPartition(partnerId, env),
        row: (r) => keyRowItem(strip<ApiKeyRecord>(r)!),
      });
    },

    /** Keys of one partner and environment, most recent first, from their rows, each with its last use (read with the records: one stage). */
    async listKeys(partnerId: string, env: Env, limit: number, after?: string): Promise<{ items: ApiKeyInUse[]; next?: string }> {
      const { items, next } = await newestFirst(table, { partition: accessKeys.keyRowsPartition(partnerId, env) }, limit, after);
      const [keys, uses] = await Promise.all([keysOf(items), Promise.all(items.map((r) => lastUsedAt(r.key_id as string, table)))]);
      const used = new Map(items.map((r, i) => [r.key_id as string, uses[i]]));
      return { items: keys.map((k) => ({ ...k, ...(used.get(k.key_id) ? { last_used_at: used.get(k.key_id) } : {}) })), next };
    },

    async getMember(partnerId: string, memberId: string): Promise<Member | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: accessKeys.member(partnerId, memberId), ConsistentRead: true }));
      return strip<Member>(r.Item);
    },

    /**
     * Changes a member's role in one transaction that keeps the partner's count
     * of enabled admins (never below 1) and re-checks that the caller is still
     * an enabled admin. Retries when a concurrent change moved the member.
     */
    async changeRole(partnerId: string, callerId: string, memberId: string, role: Role, seal: Seal<Member> = unsealed, read?: Member): Promise<Member> {
      // `read`: the member as the caller just read it (strongly consistent), for the first attempt; its
      // transaction is pinned to that role and enabled flag, and a retry after a concurrent change reads again.
      let known = read;
      return retryingMemberChange('role change', async () => {
        const member = known ?? (await store.getMember(partnerId, memberId));
        known = undefined;
        if (!member) throw new AccessError('not_found', `member ${memberId} does not exist`);
        if (member.role === role) return member;
        const delta = !member.enabled ? 0 : member.role === 'PARTNER_ADMIN' ? -1 : role === 'PARTNER_ADMIN' ? 1 : 0;
        const named: Partial<Record<MemberChangeItem, TransactItem>> = {
          member: {
            Update: {
              TableName: TableName(),
              Key: accessKeys.member(partnerId, memberId),
              UpdateExpression: 'SET #r = :new, updated_at = :now',
              // Also pinned to the enabled flag the admin count was computed from.
              ConditionExpression: '#r = :old AND enabled = :enabled',
              ExpressionAttributeNames: { '#r': 'role' },
              ExpressionAttributeValues: { ':new': role, ':old': member.role, ':now': new Date().toISOString(), ':enabled': member.enabled },
            },
          },
          ...callerCheck(TableName(), partnerId, callerId),
        };
        if (delta !== 0) named.partner = adminCountUpdate(TableName(), partnerId, delta);
        const now = new Date().toISOString();
        // Promoted to PARTNER_ADMIN: the keys other members issued for it are revoked with the promotion
        // (authentication refuses them anyway while the member is an admin; see authenticate.ts).
        const revocations =
          role === 'PARTNER_ADMIN'
            ? (await store.unrevokedKeys(partnerId, memberId, 'others')).slice(0, 90).map((k) => revokeItem(TableName(), k.key_id, now))
            : [];
        const changed: Member = { ...member, role };
        const cancelled = await transact(table.client, named, revocations, seal.items(changed));
        return cancelled ? memberChangeRefused('role change', cancelled) : changed;
      });
    },

    /** The member's live and sandbox keys not yet revoked: all of them, or only those another member issued. */
    async unrevokedKeys(partnerId: string, memberId: string, which: 'all' | 'others' = 'all'): Promise<ApiKeyRecord[]> {
      const others = which === 'others' ? ' AND attribute_exists(issued_by) AND issued_by <> :m' : '';
      const rows = await Promise.all(
        (['live', 'test'] as const).map((env) =>
          queryAll(table, {
            KeyConditionExpression: 'pk = :p',
            FilterExpression: `member_id = :m${others}`,
            ExpressionAttributeValues: { ':p': accessKeys.keyRowsPartition(partnerId, env), ':m': memberId },
            ConsistentRead: true,
          }),
        ),
      );
      return (await keysOf(rows.flat())).filter((k) => !k.revoked_at);
    },

    /**
     * Enables or disables a member, keeping the partner's count of enabled
     * admins: disabling the last enabled admin is refused. `callerId`: the
     * member acting, re-checked as an enabled PARTNER_ADMIN in the same
     * transaction (operators act without one).
     */
    async setMemberEnabled(partnerId: string, memberId: string, enabled: boolean, opts: MemberChangeOptions = {}): Promise<Member> {
      return retryingMemberChange(enabled ? 'enable' : 'disable', async () => {
        const member = await store.getMember(partnerId, memberId);
        if (!member) throw new AccessError('not_found', `member ${memberId} does not exist in partner ${partnerId}`);
        if (member.enabled === enabled) return member;
        const now = new Date().toISOString();
        const cancelled = await transact(
          table.client,
          {
            member: {
              Update: {
                TableName: TableName(),
                Key: accessKeys.member(partnerId, memberId),
                UpdateExpression: enabled
                  ? 'SET enabled = :e, updated_at = :now REMOVE disabled_at'
                  : 'SET enabled = :e, updated_at = :now, disabled_at = :now, sessions_revoked_at = :now',
                ConditionExpression: 'enabled = :was AND #r = :role',
                ExpressionAttributeNames: { '#r': 'role' },
                ExpressionAttributeValues: { ':e': enabled, ':was': member.enabled, ':role': member.role, ':now': now },
              },
            },
            ...(member.role === 'PARTNER_ADMIN' ? { partner: adminCountUpdate(TableName(), partnerId, enabled ? 1 : -1) } : {}),
            ...callerCheck(TableName(), partnerId, opts.callerId),
          },
          [],
          sealOf(opts).items(withEnabled(member, enabled, now)),
        );
        return cancelled ? memberChangeRefused(enabled ? 'enable' : 'disable', cancelled) : withEnabled(member, enabled, now);
      });
    },

    /**
     * Removes a member with its e-mail item and identity link, and revokes its
     * keys in both environments (they fail anyway: authentication finds no
     * member). Removing the last enabled admin is refused. Resolves to the
     * member as it was.
     */
    async removeMember(partnerId: string, memberId: string, opts: MemberChangeOptions = {}): Promise<Member> {
      const removed = await retryingMemberChange('removal', async () => {
        const member = await store.getMember(partnerId, memberId);
        if (!member) throw new AccessError('not_found', `member ${memberId} does not exist in partner ${partnerId}`);
        const keys = await store.unrevokedKeys(partnerId, memberId);
        const now = new Date().toISOString();
        const named: Partial<Record<MemberChangeItem | 'email' | 'identity', TransactItem>> = {
          member: {
            Delete: {
              TableName: TableName(),
              Key: accessKeys.member(partnerId, memberId),
              // Pinned to the state the admin count was computed from.
              ConditionExpression: 'enabled = :enabled AND #r = :role',
              ExpressionAttributeNames: { '#r': 'role' },
              ExpressionAttributeValues: { ':enabled': member.enabled, ':role': member.role },
            },
          },
          email: { Delete: { TableName: TableName(), Key: accessKeys.memberEmail(partnerId, member.email) } },
          ...(member.identity_id ? { identity: { Delete: { TableName: TableName(), Key: accessKeys.identity(member.identity_id) } } } : {}),
          ...(member.enabled && member.role === 'PARTNER_ADMIN' ? { partner: adminCountUpdate(TableName(), partnerId, -1) } : {}),
          ...callerCheck(TableName(), partnerId, opts.callerId),
        };
        const revocations = keys.slice(0, MAX_REVOCATIONS).map((k) => revokeItem(TableName(), k.key_id, now));
        const cancelled = await transact(table.client, named, revocations, sealOf(opts).items(member));
        return cancelled ? memberChangeRefused('removal', cancelled) : { member, rest: keys.slice(MAX_REVOCATIONS), now };
      });
      // A member with more keys than one transaction takes: the rest after it (they already fail without their member).
      for (const k of removed.rest) await store.revokeKey(k.key_id, undefined, unsealed, new Date(removed.now));
      return removed.member;
    },

    async listPartners(): Promise<Partner[]> {
      const items = await queryAll(table, {
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': accessKeys.partnersPartition },
      });
      return items.map((i) => strip<Partner>(i)!);
    },

    async getPartner(partnerId: string): Promise<Partner | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: accessKeys.partner(partnerId) }));
      return strip<Partner>(r.Item);
    },

    async listMembers(partnerId: string): Promise<Member[]> {
      const { pk, skPrefix } = accessKeys.members(partnerId);
      const r = await table.client.send(
        new QueryCommand({
          TableName: TableName(),
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :m)',
          ExpressionAttributeValues: { ':p': pk, ':m': skPrefix },
          // The team list shows an invitation or a change the moment it is answered.
          ConsistentRead: true,
        }),
      );
      return (r.Items ?? []).map((i) => strip<Member>(i)!);
    },

    /**
     * Ends the member's console sessions signed in until `now` (sign-out), and the signing-out session
     * itself (`sessionId`, its origin_jti) even within the second: the API refuses their tokens from the next request.
     */
    async endSessions(partnerId: string, memberId: string, sessionId?: string, now = new Date()): Promise<string> {
      const at = now.toISOString();
      await table.client.send(
        new UpdateCommand({
          TableName: TableName(),
          Key: accessKeys.member(partnerId, memberId),
          UpdateExpression: sessionId ? 'SET sessions_revoked_at = :at, sessions_revoked_id = :id' : 'SET sessions_revoked_at = :at REMOVE sessions_revoked_id',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': at, ...(sessionId ? { ':id': sessionId } : {}) },
        }),
      );
      return at;
    },

    /** The member a console user acts as (strongly consistent: a removed member's link is gone at once). */
    async getIdentity(sub: string): Promise<IdentityLink | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: accessKeys.identity(sub), ConsistentRead: true }));
      return strip<IdentityLink>(r.Item);
    },

    /** Links a member made before the console to its new console user; refused if either is already linked. */
    async linkIdentity(partnerId: string, memberId: string, sub: string): Promise<Member> {
      const cancelled = await transact(table.client, {
        member: {
          Update: {
            TableName: TableName(),
            Key: accessKeys.member(partnerId, memberId),
            UpdateExpression: 'SET identity_id = :sub',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(identity_id)',
            ExpressionAttributeValues: { ':sub': sub },
          },
        },
        identity: { Put: { TableName: TableName(), Item: identityItem(sub, partnerId, memberId), ConditionExpression: 'attribute_not_exists(pk)' } },
      });
      if (cancelled) throw new AccessError('conflict', `member ${memberId} or console user ${sub} is already linked`);
      return (await store.getMember(partnerId, memberId))!;
    },

    /** Strongly consistent: a revoked key stops working on the very next request. */
    async getKey(keyId: string): Promise<ApiKeyRecord | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: accessKeys.apiKey(keyId), ConsistentRead: true }));
      return strip<ApiKeyRecord>(r.Item);
    },

    /**
     * Member and partner in one round trip, with the key itself when `keyId` is given
     * (BatchGetItem, strongly consistent: revocations and role changes apply at once).
     */
    async getMemberAndPartner(partnerId: string, memberId: string, keyId?: string): Promise<{ key?: ApiKeyRecord; member?: Member; partner?: Partner }> {
      const memberKey = accessKeys.member(partnerId, memberId);
      const partnerKey = accessKeys.partner(partnerId);
      const keyKey = keyId === undefined ? undefined : accessKeys.apiKey(keyId);
      const items = await batchGet(table, keyKey ? [keyKey, memberKey, partnerKey] : [memberKey, partnerKey]);
      const find = (k: { pk: string; sk: string }) => items.find((i) => i.pk === k.pk && i.sk === k.sk);
      return {
        ...(keyKey ? { key: strip<ApiKeyRecord>(find(keyKey)) } : {}),
        member: strip<Member>(find(memberKey)),
        partner: strip<Partner>(find(partnerKey)),
      };
    },

    async setRateLimit(partnerId: string, perMinute: number | null): Promise<Partner> {
      return updatePartner(
        partnerId,
        perMinute === null
          ? { UpdateExpression: 'REMOVE rate_limit_per_minute' }
          : { UpdateExpression: 'SET rate_limit_per_minute = :n', ExpressionAttributeValues: { ':n': perMinute } },
      );
    },

    /**
     * Disables a partner (every key of every member fails authentication at once,
     * in both environments) or enables it again. Its data, members and keys are kept.
     */
    async setPartnerEnabled(partnerId: string, enabled: boolean, now = new Date()): Promise<Partner> {
      return updatePartner(
        partnerId,
        enabled
          ? { UpdateExpression: 'REMOVE disabled_at' }
          : { UpdateExpression: 'SET disabled_at = if_not_exists(disabled_at, :now)', ExpressionAttributeValues: { ':now': now.toISOString() } },
      );
    },

    /** The partner's legal identity for its invoices: fields given are set, fields given as null are removed. */
    async setLegalIdentity(
      partnerId: string,
      identity: { legal_name?: string | null; legal_address?: string | null; legal_ice?: string | null },
    ): Promise<Partner> {
      const set: string[] = [];
      const remove: string[] = [];
      const values: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(identity)) {
        if (v === undefined) continue;
        if (v === null) remove.push(k);
        else {
          set.push(`${k} = :${k}`);
          values[`:${k}`] = v;
        }
      }
      if (!set.length && !remove.length) {
        const p = await store.getPartner(partnerId);
        if (!p) throw new AccessError('not_found', `partner ${partnerId} does not exist`);
        return p;
      }
      return updatePartner(partnerId, {
        UpdateExpression: [set.length ? `SET ${set.join(', ')}` : '', remove.length ? `REMOVE ${remove.join(', ')}` : ''].join(' ').trim(),
        ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
      });
    },

    /** Moves a tenant's sandbox to a catalog snapshot (the weekly refresh), as a transaction item. */
    sandboxCatalogItem(partnerId: string, snapshot: string, now: Date): TransactItem {
      return {
        Update: {
          TableName: TableName(),
          Key: accessKeys.partner(partnerId),
          UpdateExpression: 'SET sandbox_catalog = :s, sandbox_refreshed_at = :t',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':s': snapshot, ':t': now.toISOString() },
        },
      };
    },
  };
  return store;
}

/** How a change to a member is made: by whom (an enabled PARTNER_ADMIN, re-checked), and with which seal. */
export interface MemberChangeOptions {
  callerId?: string;
  seal?: Seal<Member>;
}

type MemberChangeItem = 'member' | 'caller' | 'partner';

/** Keys revoked in a removal's own transaction (a transaction takes 100 items; the others leave room for the seal). */
const MAX_REVOCATIONS = 90;

const sealOf = (opts: MemberChangeOptions): Seal<Member> => opts.seal ?? unsealed;

const callerNotAdmin = () => new AccessError('invalid', 'caller_not_admin');

/** The acting member is still an enabled PARTNER_ADMIN, as a transaction item named `caller` (none for operators). */
function callerCheck(TableName: string, partnerId: string, callerId: string | undefined): { caller?: TransactItem } {
  if (!callerId) return {};
  return {
    caller: {
      ConditionCheck: {
        TableName,
        Key: accessKeys.member(partnerId, callerId),
        ConditionExpression: '#r = :admin AND enabled = :t',
        ExpressionAttributeNames: { '#r': 'role' },
        ExpressionAttributeValues: { ':admin': 'PARTNER_ADMIN', ':t': true },
      },
    },
  };
}

/**
 * Why a change to a member was cancelled: the last enabled admin (`conflict`),
 * a caller who is no longer an enabled admin (`invalid`), or undefined when a
 * concurrent change moved the member (read it again and retry).
 */
function memberChangeRefused(what: string, cancelled: TransactionCancelled<MemberChangeItem | string>): undefined {
  if (cancelled.failed('partner')) throw new AccessError('conflict', 'last_admin');
  if (cancelled.failed('caller')) throw callerNotAdmin();
  if (cancelled.failed('member') || cancelled.conflict) return undefined;
  throw new Error(`member ${what} was cancelled (${cancelled.codes.join(', ')})`);
}

/** Runs `attempt` (which reads the member afresh) until it commits; undefined means a concurrent change to retry. */
async function retryingMemberChange<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  for (let n = 0; n < 5; n++) {
    const done = await attempt();
    if (done !== undefined) return done;
    await backoff(n + 2, 20, 300);
  }
  throw new Error(`member ${what} kept conflicting with concurrent changes`);
}

function withEnabled(member: Member, enabled: boolean, now: string): Member {
  const { disabled_at: _was, ...rest } = member;
  return { ...rest, enabled, ...(enabled ? {} : { disabled_at: now, sessions_revoked_at: now }) };
}

/** Revokes a key (keeping an earlier revocation time), as a transaction item. */
function revokeItem(TableName: string, keyId: string, now: string): TransactItem {
  return {
    Update: {
      TableName,
      Key: accessKeys.apiKey(keyId),
      UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
      ExpressionAttributeValues: { ':now': now },
    },
  };
}

/** Keeps the partner's count of enabled admins: an increment, or a decrement that never leaves it below 1. */
function adminCountUpdate(TableName: string, partnerId: string, delta: 1 | -1): TransactItem {
  return {
    Update: {
      TableName,
      Key: accessKeys.partner(partnerId),
      UpdateExpression: 'ADD admin_count :d',
      ConditionExpression: delta < 0 ? 'admin_count > :one' : 'attribute_exists(pk)',
      ExpressionAttributeValues: delta < 0 ? { ':d': -1, ':one': 1 } : { ':d': 1 },
    },
  };
}

export const accessStore = makeAccessStore();
export type AccessStore = typeof accessStore;
