import { AccessError, accessRepository } from '../access/repository';
import type { ApiKeyRecord, Member } from '../access/model';
import type { Role } from '../access/roles';
import { ApiError, notFound } from '../errors';
import type { Principal } from '../http/context';

export function memberView(m: Member, principal: Principal) {
  return {
    id: m.member_id,
    email: m.email,
    role: m.role,
    enabled: m.enabled,
    is_you: m.member_id === principal.memberId,
    first_name: m.first_name,
    last_name: m.last_name,
    created_at: m.created_at,
  };
}

export function keyView(k: ApiKeyRecord) {
  return {
    id: k.key_id,
    member_id: k.member_id,
    environment: k.env,
    status: k.revoked_at ? ('REVOKED' as const) : ('ACTIVE' as const),
    created_at: k.created_at,
    revoked_at: k.revoked_at ?? null,
    issued_by: k.issued_by ?? null,
  };
}

export async function listMembers(principal: Principal) {
  const members = await accessRepository.listMembers(principal.partnerId);
  members.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.member_id.localeCompare(b.member_id));
  return members.map((m) => memberView(m, principal));
}

export async function changeRole(principal: Principal, userId: string, role: Role) {
  if (userId === principal.memberId) {
    throw new ApiError('team.role.self_change', 'You cannot change your own role; ask another PARTNER_ADMIN.', { user_id: userId });
  }
  try {
    return memberView(await accessRepository.changeRole(principal.partnerId, principal.memberId, userId, role), principal);
  } catch (e) {
    if (!(e instanceof AccessError)) throw e;
    if (e.kind === 'not_found') throw notFound('Team member', userId);
    if (e.kind === 'conflict') {
      throw new ApiError('team.role.last_admin', 'This change would leave your partner without a PARTNER_ADMIN; promote another member first.', {
        user_id: userId,
      });
    }
    // The caller stopped being an admin while the request ran.
    throw new ApiError('auth.scope.insufficient', "This operation needs the scope 'team:manage', which your role no longer has.", {
      required_scope: 'team:manage',
    });
  }
}

/**
 * Issues a key for a member in the caller's environment. Keys for another
 * PARTNER_ADMIN are refused: holding one would let an admin act as a peer
 * (and change their own role through it).
 */
export async function createKey(principal: Principal, memberId: string) {
  const member = await accessRepository.getMember(principal.partnerId, memberId);
  if (!member || !member.enabled) throw notFound('Enabled team member', memberId);
  if (member.role === 'PARTNER_ADMIN' && memberId !== principal.memberId) {
    throw new ApiError('team.key.other_admin', 'Keys for another PARTNER_ADMIN can only be issued by that admin or by the service operators.', { member_id: memberId });
  }
  try {
    const issued = await accessRepository.issueKey(principal.partnerId, memberId, principal.env, { issuedBy: principal.memberId });
    return { ...keyView(issued.record), key: issued.key };
  } catch (e) {
    if (e instanceof AccessError) throw notFound('Enabled team member', memberId);
    throw e;
  }
}

export async function revokeKey(principal: Principal, keyId: string) {
  try {
    return keyView(await accessRepository.revokeKey(keyId, { partnerId: principal.partnerId, env: principal.env }));
  } catch (e) {
    if (e instanceof AccessError) throw notFound('API key', keyId);
    throw e;
  }
}
