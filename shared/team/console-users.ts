import type { Member } from '../access/model';
import { AccessError, accessStore, type NewMember } from '../access/store';
import { DirectoryError, directory } from '../identity/directory';

/**
 * Members and their console users (Cognito) are made together: the user first
 * (its `sub` is the member's id), then the member and its identity link in one
 * transaction. If the member cannot be stored, the user is deleted again, so a
 * failed invitation leaves no one who can sign in.
 */
export async function addConsoleMember(partnerId: string, m: NewMember, opts: { suppressMail?: boolean } = {}): Promise<Member> {
  const sub = await newUser(m.email, { first_name: m.first_name ?? '', last_name: m.last_name ?? '' }, opts);
  try {
    return await accessStore.addMember(partnerId, { ...m, identity_id: sub });
  } catch (e) {
    await directory.remove(sub);
    throw e;
  }
}

/**
 * Creates the console user. A user of that e-mail that no member is linked to
 * was left by an invitation that died before its member was stored: it is
 * replaced. A linked one means the person is already a member (of some partner).
 */
async function newUser(email: string, names: { first_name: string; last_name: string }, opts: { suppressMail?: boolean }): Promise<string> {
  try {
    return await directory.invite(email, names, opts);
  } catch (e) {
    if (!(e instanceof DirectoryError) || e.kind !== 'exists') throw e;
    const existing = await directory.get(email);
    if (!existing || (await accessStore.getIdentity(existing.sub))) throw e;
    await directory.remove(existing.sub);
    return directory.invite(email, names, opts);
  }
}

/** A partner and its first PARTNER_ADMIN, who is invited to the console. */
export async function createPartnerWithConsole(input: Parameters<typeof accessStore.createPartner>[0] & { suppressMail?: boolean }) {
  const email = input.email ?? `admin+${crypto.randomUUID().slice(0, 8)}@example.invalid`;
  const sub = await newUser(email, { first_name: 'Admin', last_name: input.name }, { suppressMail: input.suppressMail ?? !input.email });
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
