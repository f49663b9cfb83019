import type { z } from 'zod';
import type { Member } from '../access/model';
import type { Role } from '../access/roles';
import { accessStore } from '../access/store';
import type { Seal } from '../db/client';
import { ApiError, notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import {
  addConsoleMember,
  type ConsoleMember,
  type RemovedMember,
  removeConsoleMember,
  resendInvitation,
  setConsoleMemberEnabled,
  withStatus,
  withStatuses,
} from './console-users';
import { teamRefusal } from './refusals';
import type { InviteMemberBody } from './schemas';
import { memberView } from './views';

/**
 * The team routes' operations on members. The rules of role changes hold for
 * every change: never your own access, never the last enabled PARTNER_ADMIN
 * (also under races: the partner's admin count is kept in each change's
 * transaction, which re-checks that the caller is still an enabled admin),
 * live keys only (the routes are liveOnly).
 */

export async function listMembers(t: Tenant) {
  const members = await accessStore.listMembers(t.partnerId);
  members.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.member_id.localeCompare(b.member_id));
  return (await withStatuses(members)).map((m) => memberView(m, t));
}

/** Your own access is changed by another PARTNER_ADMIN (or an operator), never by you. */
function notYourself(t: Tenant, userId: string, what: 'role' | 'disable' | 'remove') {
  if (userId !== t.memberId) return;
  if (what === 'role') throw new ApiError('team.role.self_change', 'You cannot change your own role; ask another PARTNER_ADMIN.', { user_id: userId });
  throw new ApiError('team.member.self', `You cannot ${what} yourself; ask another PARTNER_ADMIN.`, { user_id: userId });
}

export async function changeRole(t: Tenant, userId: string, role: Role, seal: Seal<ConsoleMember>): Promise<ConsoleMember> {
  notYourself(t, userId, 'role');
  const member = await accessStore.getMember(t.partnerId, userId);
  if (!member) throw notFound('Team member', userId);
  const { status } = await withStatus(member);
  try {
    // The member just read is the change's first attempt's: no second read before its transaction.
    const changed = await accessStore.changeRole(t.partnerId, t.memberId, userId, role, { items: (m: Member) => seal.items({ ...m, status }) }, member);
    return { ...changed, status };
  } catch (e) {
    throw teamRefusal(e, userId, 'role');
  }
}

export const inviteMember = (t: Tenant, body: z.infer<typeof InviteMemberBody>, seal: Seal<ConsoleMember>) =>
  addConsoleMember(t.partnerId, body, { callerId: t.memberId, seal });

export async function setMemberEnabled(t: Tenant, userId: string, enabled: boolean, seal: Seal<ConsoleMember>) {
  // Enabling yourself is moot (a disabled member cannot call), and refused like the rest of your own access.
  notYourself(t, userId, 'disable');
  return setConsoleMemberEnabled(t.partnerId, userId, enabled, { callerId: t.memberId, seal });
}

export async function removeMember(t: Tenant, userId: string, seal: Seal<RemovedMember>) {
  notYourself(t, userId, 'remove');
  return removeConsoleMember(t.partnerId, userId, { callerId: t.memberId, seal });
}

export const resendMemberInvitation = (t: Tenant, userId: string) => resendInvitation(t.partnerId, userId, { callerId: t.memberId });
