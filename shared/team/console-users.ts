import type { Member } from '../access/model';
import { AccessError, accessStore, type NewMember } from '../access/store';
import type { Seal } from '../db/client';
import { DirectoryError, type DirectoryUser, directory } from '../identity/directory';
import { ApiError, notFound } from '../kernel/errors';
import { logger } from '../kernel/logger';
import { IDEMPOTENCY_LOCK_MS } from '../platform/idempotency';
import type { InvitationNames } from './invitation';
import { InvitationInFlight, pendingInvitations } from './pending-invitations';
import { callerNotAdmin, memberExists, type TeamChange, teamRefusal } from './refusals';
import type { MemberStatus } from './schemas';

/**
 * Members and their console users (Cognito), kept together. The member item
 * is the gate: authentication reads it on every request, so access closes
 * when it changes (a disable, a removal) and opens only once the console user
 * is ready (an invitation, an enable). The admin CLI and the team routes use
 * these same functions; a route passes the caller (re-checked as an enabled
 * PARTNER_ADMIN in the change's own transaction) and its seal.
 */

/** A member with its console status: INVITED until its first sign-in, ACTIVE, or DISABLED. */
export type ConsoleMember = Member & { status: MemberStatus };
/** A member as a removal leaves it: gone, since `removed_at`. */
export type RemovedMember = Member & { removed_at: string };

export interface ActingAs {
  /** The member acting (absent for operators). */
  callerId?: string;
  /** The route's idempotency seal: the answer commits in the change's own transaction. */
  seal?: Seal<ConsoleMember>;
}

/** The store's seal for a change whose answer has the status `status`. */
const sealWith = (seal: Seal<ConsoleMember> | undefined, status: MemberStatus): Seal<Member> | undefined =>
  seal && { items: (m) => seal.items({ ...m, status }) };

const statusOf = (m: Member, user: DirectoryUser | undefined): MemberStatus =>
  !m.enabled ? 'DISABLED' : user?.status === 'FORCE_CHANGE_PASSWORD' ? 'INVITED' : 'ACTIVE';

/**
 * The member's status, read from Cognito (AdminGetUser) for an enabled member
 * with a console user. A member without one (made before the console) is
 * ACTIVE: its keys work.
 */
export async function withStatus(m: Member): Promise<ConsoleMember> {
  const user = m.enabled && m.identity_id ? await directory.get(m.identity_id) : undefined;
  return { ...m, status: statusOf(m, user) };
}

/** Statuses of a team (at most a few dozen members), read a few at a time to stay far below Cognito's request rate. */
export async function withStatuses(members: Member[], concurrency = 8): Promise<ConsoleMember[]> {
  const out: ConsoleMember[] = new Array(members.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < members.length; i = next++) out[i] = await withStatus(members[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, members.length) }, worker));
  return out;
}

/**
 * Invites a member: the console user first (Cognito e-mails the temporary
 * password; its `sub` is the member's id), then the member and its identity
 * link in one transaction. If the member cannot be stored, the user is
 * deleted again, so a failed invitation leaves no one who can sign in.
 * An e-mail already a member of the partner is refused before any user is made.
 */
export async function addConsoleMember(partnerId: string, m: NewMember, opts: ActingAs & { suppressMail?: boolean } = {}): Promise<ConsoleMember> {
  if (await accessStore.getMemberByEmail(partnerId, m.email)) throw memberExists(m.email, 'team');
  const names = { first_name: m.first_name ?? '', last_name: m.last_name ?? '' };
  const create = () => newUser(m.email, names, { ...opts, partnerId });
  const sub = opts.suppressMail ? await create() : await inviting(m.email, await invitationFrom(partnerId, opts.callerId), create);
  try {
    const member = await accessStore.addMember(partnerId, { ...m, identity_id: sub }, { callerId: opts.callerId, seal: sealWith(opts.seal, 'INVITED') });
    return { ...member, status: 'INVITED' };
  } catch (e) {
    await directory.remove(sub);
    if (e instanceof AccessError && e.kind === 'conflict') throw memberExists(m.email, 'team');
    if (e instanceof AccessError && e.kind === 'invalid') throw callerNotAdmin();
    throw e;
  }
}

/** What the invitation e-mail names: the partner and, unless an operator invites, the member inviting. */
async function invitationFrom(partnerId: string, callerId?: string): Promise<InvitationNames> {
  const [partner, caller] = await Promise.all([accessStore.getPartner(partnerId), callerId ? accessStore.getMember(partnerId, callerId) : undefined]);
  return {
    partner_name: partner?.name ?? '',
    ...(caller ? { inviter_name: `${caller.first_name} ${caller.last_name}`.trim(), inviter_email: caller.email } : {}),
  };
}

/**
 * A first invitation's AdminCreateUser, with its names pending for the e-mail's trigger; refused (409, being
 * sent) while another invitation to the address is.
 */
async function inviting<T>(email: string, names: InvitationNames, create: () => Promise<T>): Promise<T> {
  try {
    return await pendingInvitations.during(email, names, create, { exclusive: true });
  } catch (e) {
    throw e instanceof InvitationInFlight ? memberExists(email, 'pending') : e;
  }
}

/**
 * A console user left by an invitation that died between its user and its
 * member is replaced, once no request can still be making it: older than the
 * idempotency lock, which outlives any function (a retry of that invitation
 * with the same Idempotency-Key runs again only after it).
 */
const LEFT_OVER_AFTER_MS = IDEMPOTENCY_LOCK_MS;

/**
 * Creates the console user. A user of that e-mail linked to a member means the
 * person is already a member (here, or of another partner, which is not
 * named); one linked to no member is a left-over invitation, replaced.
 */
async function newUser(email: string, names: { first_name: string; last_name: string }, opts: { suppressMail?: boolean; partnerId?: string }): Promise<string> {
  try {
    return await directory.invite(email, names, opts);
  } catch (e) {
    if (!(e instanceof DirectoryError) || e.kind !== 'exists') throw e;
    const existing = await directory.get(email);
    if (!existing) throw e;
    const link = await accessStore.getIdentity(existing.sub);
    if (link) throw memberExists(email, link.partner_id === opts.partnerId ? 'team' : 'elsewhere');
    if (existing.createdAt && Date.now() - existing.createdAt.getTime() < LEFT_OVER_AFTER_MS) throw memberExists(email, 'pending');
    await directory.remove(existing.sub);
    return directory.invite(email, names, opts);
  }
}

/** Cognito calls on a member's console user; a user deleted outside the service leaves nothing to do. */
async function onUser(m: Member, what: string, call: (sub: string) => Promise<void>): Promise<void> {
  if (!m.identity_id) return;
  try {
    await call(m.identity_id);
  } catch (e) {
    if (!(e instanceof DirectoryError) || e.kind !== 'not_found') throw e;
    logger.warn(`member's console user not found on ${what}`, { member_id: m.member_id });
  }
}

async function existingMember(partnerId: string, memberId: string): Promise<Member> {
  const m = await accessStore.getMember(partnerId, memberId);
  if (!m) throw notFound('Team member', memberId);
  return m;
}

/**
 * Disables a member, then its console user (which also signs it out
 * everywhere); enables the console user, then the member. Disabling the last
 * enabled admin is refused. A member already in that state still gets its
 * console user put in the same state (a retry repairs a change cut short).
 */
export async function setConsoleMemberEnabled(partnerId: string, memberId: string, enabled: boolean, opts: ActingAs = {}): Promise<ConsoleMember> {
  const change: TeamChange = enabled ? 'enable' : 'disable';
  const before = await existingMember(partnerId, memberId);
  let status: MemberStatus = 'DISABLED';
  if (enabled) {
    await onUser(before, change, (sub) => directory.setEnabled(sub, true));
    status = (await withStatus({ ...before, enabled: true })).status;
  }
  let member: Member;
  try {
    member = await accessStore.setMemberEnabled(partnerId, memberId, enabled, { callerId: opts.callerId, seal: sealWith(opts.seal, status) });
  } catch (e) {
    // Refused (the caller is no longer an admin): the console user goes back to the member's state.
    if (enabled && !before.enabled) await onUser(before, change, (sub) => directory.setEnabled(sub, false));
    throw teamRefusal(e, memberId, change);
  }
  if (!enabled) await onUser(member, change, (sub) => directory.setEnabled(sub, false));
  return { ...member, status };
}

/**
 * Removes a member (its e-mail item, its identity link; its keys revoked in
 * both environments), then deletes its console user. Its keys and sessions
 * fail from the next request; its e-mail can be invited again.
 */
export async function removeConsoleMember(
  partnerId: string,
  memberId: string,
  opts: Omit<ActingAs, 'seal'> & { seal?: Seal<RemovedMember> } = {},
): Promise<RemovedMember> {
  await existingMember(partnerId, memberId);
  const removedAt = new Date().toISOString();
  const seal = opts.seal && { items: (m: Member) => opts.seal!.items({ ...m, removed_at: removedAt }) };
  let removed: Member;
  try {
    removed = await accessStore.removeMember(partnerId, memberId, { callerId: opts.callerId, seal });
  } catch (e) {
    throw teamRefusal(e, memberId, 'remove');
  }
  await onUser(removed, 'remove', (sub) => directory.remove(sub));
  return { ...removed, removed_at: removedAt };
}

/**
 * E-mails a new temporary password to a member who has not signed in yet
 * (the previous one stops working). A member made before the console gets its
 * console user here, and this invitation is its first.
 */
export async function resendInvitation(partnerId: string, memberId: string, opts: Pick<ActingAs, 'callerId'> = {}): Promise<ConsoleMember> {
  const member = await existingMember(partnerId, memberId);
  if (!member.enabled) {
    throw new ApiError('team.member.disabled', 'This member is disabled: enable them before sending their invitation again.', { user_id: memberId });
  }
  const linked = member.identity_id
    ? member
    : await linkConsoleUser(member).catch((e: unknown) => {
        throw e instanceof AccessError && e.kind === 'conflict' ? memberExists(member.email, 'elsewhere') : e;
      });
  try {
    const [user, names] = await Promise.all([directory.get(linked.identity_id!), invitationFrom(partnerId, opts.callerId)]);
    if (!user) throw new DirectoryError('not_found', `user ${linked.identity_id} does not exist`);
    await pendingInvitations.during(user.email, names, () => directory.resendInvitation(user.email), { exclusive: false });
  } catch (e) {
    if (e instanceof DirectoryError && e.kind === 'not_invited') {
      throw new ApiError(
        'team.member.already_active',
        'This member has already signed in to the console, so there is no invitation to send again. They can reset their password from the sign-in page.',
        { user_id: memberId },
      );
    }
    throw e;
  }
  return { ...linked, status: 'INVITED' };
}

/** A partner and its first PARTNER_ADMIN, who is invited to the console. */
export async function createPartnerWithConsole(input: Parameters<typeof accessStore.createPartner>[0] & { suppressMail?: boolean }) {
  const email = input.email ?? `admin+${crypto.randomUUID().slice(0, 8)}@example.invalid`;
  const suppressMail = input.suppressMail ?? !input.email;
  const create = () => newUser(email, { first_name: 'Admin', last_name: input.name }, { suppressMail });
  const sub = suppressMail ? await create() : await inviting(email, { partner_name: input.name }, create);
  try {
    return await accessStore.createPartner({ ...input, adminEmail: email, adminIdentityId: sub });
  } catch (e) {
    await directory.remove(sub);
    throw e;
  }
}

/**
 * Gives a member made before the console its console user, keeping the
 * member's id (audit lines and keys name it): the user's `sub` is linked to it.
 * No e-mail is sent; an operator sets a password (member:set-password) or resends
 * the invitation. A member already linked is returned as it is.
 */
export async function linkConsoleUser(member: Member): Promise<Member> {
  if (member.identity_id) return member;
  let sub: string;
  try {
    sub = await directory.invite(member.email, { first_name: member.first_name, last_name: member.last_name }, { suppressMail: true });
  } catch (e) {
    if (!(e instanceof DirectoryError) || e.kind !== 'exists') throw e;
    throw new AccessError('conflict', `a console user with e-mail ${member.email} already exists`);
  }
  try {
    return await accessStore.linkIdentity(member.partner_id, member.member_id, sub);
  } catch (e) {
    await directory.remove(sub);
    throw e;
  }
}
