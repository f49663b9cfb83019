import { AccessError } from '../access/store';
import { ApiError, notFound } from '../kernel/errors';

/** What is being done to a member: the refusals speak of it in plain words (the console shows them verbatim). */
export type TeamChange = 'role' | 'disable' | 'enable' | 'remove';

const LAST_ADMIN: Record<TeamChange, string> = {
  role: 'This change would leave your partner without a PARTNER_ADMIN; promote another member first.',
  disable: 'This member is the last enabled PARTNER_ADMIN of your partner; promote or enable another admin before disabling them.',
  enable: 'This change would leave your partner without a PARTNER_ADMIN; promote another member first.',
  remove: 'This member is the last enabled PARTNER_ADMIN of your partner; promote or enable another admin before removing them.',
};

/**
 * The refusal a partner (or an operator) sees for what the access store
 * refused about member `userId`: 404 for a member that is not there, 409
 * team.role.last_admin, and 403 when the caller stopped being an admin while
 * the request ran. Anything else is returned as it is.
 */
export function teamRefusal(e: unknown, userId: string, change: TeamChange): unknown {
  if (!(e instanceof AccessError)) return e;
  if (e.kind === 'not_found') return notFound('Team member', userId);
  if (e.kind === 'conflict' && e.message === 'last_admin') return new ApiError('team.role.last_admin', LAST_ADMIN[change], { user_id: userId });
  if (e.kind === 'invalid' && e.message === 'caller_not_admin') return callerNotAdmin();
  return e;
}

export const callerNotAdmin = () =>
  new ApiError('auth.scope.insufficient', "This operation needs the scope 'team:manage', which your role no longer has.", {
    required_scope: 'team:manage',
  });

/** 409 team.member.exists, in the words of where the address is taken (never naming another partner). */
export function memberExists(email: string, where: 'team' | 'elsewhere' | 'pending'): ApiError {
  const message = {
    team: `${email} is already a member of your team.`,
    elsewhere: 'This e-mail address already signs in to the console of another company. A console user belongs to one company: ask them for another address.',
    pending: 'An invitation to this e-mail address is being sent right now. Look at the team list again in a minute.',
  }[where];
  return new ApiError('team.member.exists', message, { email });
}
