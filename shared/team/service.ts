import type { ApiKeyInUse, ApiKeyRecord } from '../access/model';
import { AccessError, accessStore, type IssuedKey } from '../access/store';
import { type Seal, unsealed } from '../db/client';
import { ApiError, notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';

export type NewKey = IssuedKey & { record: ApiKeyRecord };

/**
 * Issues a key for a member in the caller's environment. Keys for another
 * PARTNER_ADMIN are refused: holding one would let an admin act as a peer
 * (and change their own role through it).
 */
export async function createKey(t: Tenant, memberId: string, name: string | undefined, seal: Seal<NewKey> = unsealed): Promise<NewKey> {
  const member = await accessStore.getMember(t.partnerId, memberId);
  if (!member?.enabled) throw notFound('Enabled team member', memberId);
  if (member.role === 'PARTNER_ADMIN' && memberId !== t.memberId) {
    throw new ApiError('team.key.other_admin', 'Keys for another PARTNER_ADMIN can only be issued by that admin or by the service operators.', {
      member_id: memberId,
    });
  }
  try {
    return await accessStore.issueKey(t.partnerId, memberId, t.env, { issuedBy: t.memberId, name }, seal);
  } catch (e) {
    if (e instanceof AccessError) throw notFound('Enabled team member', memberId);
    throw e;
  }
}

export async function revokeKey(t: Tenant, keyId: string, seal: Seal<ApiKeyInUse> = unsealed): Promise<ApiKeyInUse> {
  try {
    return await accessStore.revokeKey(keyId, { partnerId: t.partnerId, env: t.env }, seal);
  } catch (e) {
    if (e instanceof AccessError) throw notFound('API key', keyId);
    throw e;
  }
}

/** Names a key of the caller's environment anew (the demo key and revoked keys included). */
export async function renameKey(t: Tenant, keyId: string, name: string, seal: Seal<ApiKeyInUse> = unsealed): Promise<ApiKeyInUse> {
  try {
    return await accessStore.renameKey(keyId, { partnerId: t.partnerId, env: t.env }, name, seal);
  } catch (e) {
    if (e instanceof AccessError) throw notFound('API key', keyId);
    throw e;
  }
}

export const listKeys = (t: Tenant, limit: number, after?: string) => accessStore.listKeys(t.partnerId, t.env, limit, after);
