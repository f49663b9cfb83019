import { accessPartitions } from '../access/keys';
import { dynamoLine } from '../db/grants';
import { defineRoutes } from '../http/route-def';
import { EmptyBody, pageQuery } from '../http/schemas';
import { platformPartitions } from '../platform/keys';
import {
  ApiKey,
  ApiKeyPage,
  ApiKeyWithSecret,
  CreateApiKeyBody,
  InviteMemberBody,
  KeyIdParams,
  RemovedTeamMember,
  RenameApiKeyBody,
  TeamMember,
  TeamMemberList,
  UpdateMemberBody,
  UpdateRoleBody,
  UserIdParams,
} from './schemas';

/**
 * What the routes that change members share: PARTNER_ADMINs only; they
 * administer console users; and members are partner-wide, so what changes one
 * reaches production: live keys only.
 */
const MEMBERSHIP = {
  access: 'key',
  scope: 'team:manage',
  tag: 'Team',
  liveOnly: 'A member belongs to the whole partner, live included, so the team changes only with a live key.',
} as const;

/** Team: the partner's console members, their roles, and their API keys. */
export const teamRoutes = defineRoutes({
  listTeamMembers: {
    method: 'GET',
    path: '/v1/team/members',
    handler: 'functions/team/list-members.ts',
    access: 'key',
    scope: 'team:read',
    tag: 'Team',
    summary: 'List the console members of your partner',
    description:
      "Your partner's console members, with their roles and their console status (INVITED until the first sign-in, ACTIVE, DISABLED); is_you marks the member of the calling key. Members are partner-wide: one member holds both its live and its sandbox keys.",
    responses: { 200: { description: 'The members; is_you marks the caller.', schema: TeamMemberList } },
    // The members (the partner's partition), each with its console status.
    dynamo: { access: { Query: [accessPartitions.partner] } },
    usesIdentity: ['AdminGetUser'],
  },
  updateTeamMemberRole: {
    method: 'PATCH',
    path: '/v1/team/members/{user_id}/role',
    handler: 'functions/team/update-role.ts',
    ...MEMBERSHIP,
    summary: "Change a member's role",
    description: 'Refused for your own role (403 team.role.self_change) and when it would leave no PARTNER_ADMIN (409 team.role.last_admin).',
    request: { params: UserIdParams, body: UpdateRoleBody },
    errors: ['team.role.self_change', 'team.role.last_admin'],
    responses: { 200: { description: 'Role updated.', schema: TeamMember } },
    liveOnly: "A member's role applies to its live keys too, so it changes only with a live key.",
    // The member (PARTNER#), the partner's admin count and the caller's check; a promotion revokes the keys others issued for it.
    dynamo: {
      access: {
        GetItem: [accessPartitions.partner],
        Query: [accessPartitions.partner],
        BatchGetItem: [accessPartitions.key],
        UpdateItem: [accessPartitions.partner, accessPartitions.key],
        ConditionCheckItem: [accessPartitions.partner],
      },
    },
    // Its answer shows the member's console status; it changes no console user.
    usesIdentity: ['AdminGetUser'],
  },
  inviteTeamMember: {
    method: 'POST',
    path: '/v1/team/members',
    handler: 'functions/team/invite-member.ts',
    ...MEMBERSHIP,
    summary: 'Invite a member to the console',
    description:
      'Creates the member and its console user; the console e-mails the address a temporary password, valid 7 days. The member is INVITED until its first sign-in, where it chooses its own password and sets up an authenticator app; its id is its console user id. An address that is already a member of your team, or that signs in to the console of another company, is refused (409 team.member.exists).',
    request: { body: InviteMemberBody },
    errors: ['team.member.exists'],
    responses: { 201: { description: 'The member, INVITED.', schema: TeamMember } },
    effectsOutsideCommit: 'Cognito e-mails the temporary password before the member commits; a rerun would e-mail another one.',
    /*
     * The member, its e-mail item, the partner's admin count and the caller's check (PARTNER#), its identity link;
     * the invitation's names held under the address for the e-mail's trigger while Cognito creates the user (INVITATION#).
     */
    dynamo: {
      access: {
        GetItem: [accessPartitions.partner, accessPartitions.identity],
        PutItem: [accessPartitions.partner, accessPartitions.identity, accessPartitions.invitation],
        UpdateItem: [accessPartitions.partner],
        DeleteItem: [accessPartitions.invitation],
        ConditionCheckItem: [accessPartitions.partner],
      },
    },
    usesIdentity: ['AdminCreateUser', 'AdminGetUser', 'AdminDeleteUser'],
    untested: {
      'cognito-idp:AdminDeleteUser on user pool':
        'an invitation whose member cannot be stored (a concurrent one, a caller no longer admin) deletes its console user again, as one replaces a left-over user',
    },
  },
  updateTeamMember: {
    method: 'PATCH',
    path: '/v1/team/members/{user_id}',
    handler: 'functions/team/update-member.ts',
    ...MEMBERSHIP,
    summary: 'Disable or enable a member',
    description:
      "enabled false: the member's API keys (both environments) and console sessions fail from the next request, and it can no longer sign in; nothing is deleted. enabled true: they work again (the member signs in again). Not for yourself (403 team.member.self), and never for the last enabled PARTNER_ADMIN (409 team.role.last_admin). A peer PARTNER_ADMIN may be disabled.",
    request: { params: UserIdParams, body: UpdateMemberBody },
    errors: ['team.member.self', 'team.role.last_admin'],
    responses: { 200: { description: 'The member, with its new state.', schema: TeamMember } },
    dynamo: { access: { GetItem: [accessPartitions.partner], UpdateItem: [accessPartitions.partner], ConditionCheckItem: [accessPartitions.partner] } },
    // Disabling signs the user out; an enable refused by the transaction disables the user again.
    usesIdentity: ['AdminGetUser', 'AdminEnableUser', 'AdminDisableUser', 'AdminUserGlobalSignOut'],
  },
  resendTeamMemberInvitation: {
    method: 'POST',
    path: '/v1/team/members/{user_id}/invitation',
    handler: 'functions/team/resend-invitation.ts',
    ...MEMBERSHIP,
    summary: "Send a member's invitation again",
    description:
      'E-mails the member a new temporary password; the previous one stops working. Only for a member who has not signed in yet (409 team.member.already_active) and is enabled (409 team.member.disabled). A member made before the console gets its console user, and this is its first invitation.',
    request: { params: UserIdParams, body: EmptyBody },
    errors: ['team.member.already_active', 'team.member.disabled'],
    responses: { 200: { description: 'The member, INVITED; the e-mail is on its way.', schema: TeamMember } },
    effectsOutsideCommit: 'Cognito e-mails a new temporary password; a rerun would e-mail another one and void the first.',
    // The invitation's names held for the e-mail's trigger (INVITATION#); a member made before the console gets its console user here: its member item and identity link.
    dynamo: {
      access: {
        GetItem: [accessPartitions.partner],
        UpdateItem: [accessPartitions.partner],
        PutItem: [accessPartitions.identity, accessPartitions.invitation],
        DeleteItem: [accessPartitions.invitation],
      },
    },
    usesIdentity: ['AdminGetUser', 'AdminCreateUser', 'AdminDeleteUser'],
    untested: {
      [dynamoLine('access', 'UpdateItem', accessPartitions.partner)]: 'a member made before the console is linked to its new console user',
      [dynamoLine('access', 'PutItem', accessPartitions.identity)]: 'a member made before the console is linked to its new console user',
      'cognito-idp:AdminDeleteUser on user pool': 'the console user made for a member made before the console is deleted again when the link fails',
    },
  },
  removeTeamMember: {
    method: 'DELETE',
    path: '/v1/team/members/{user_id}',
    handler: 'functions/team/remove-member.ts',
    ...MEMBERSHIP,
    summary: 'Remove a member',
    description:
      'Removes the member and its console user, and revokes its API keys in both environments: its keys and sessions fail from the next request. Its bookings, audit lines and the keys it issued for others stay. Its e-mail address can be invited again (a new member, with a new id). Not for yourself (403 team.member.self), and never for the last enabled PARTNER_ADMIN (409 team.role.last_admin).',
    request: { params: UserIdParams },
    errors: ['team.member.self', 'team.role.last_admin'],
    responses: { 200: { description: 'The member as the removal leaves it: REMOVED, disabled, since removed_at.', schema: RemovedTeamMember } },
    // The member, its e-mail item, identity link and keys; the partner's admin count; keys beyond one transaction one by one.
    dynamo: {
      access: {
        GetItem: [accessPartitions.partner, accessPartitions.key],
        Query: [accessPartitions.partner, platformPartitions.rateCounters],
        BatchGetItem: [accessPartitions.key],
        DeleteItem: [accessPartitions.partner, accessPartitions.identity],
        UpdateItem: [accessPartitions.partner, accessPartitions.key],
        ConditionCheckItem: [accessPartitions.partner],
      },
    },
    usesIdentity: ['AdminDeleteUser'],
    untested: {
      [dynamoLine('access', 'UpdateItem', accessPartitions.partner)]: "removing an enabled PARTNER_ADMIN lowers the partner's admin count",
      [dynamoLine('access', 'Query', platformPartitions.rateCounters)]:
        'a member with more than 90 keys: the rest are revoked one by one after its removal, with their last use',
    },
  },
  listApiKeys: {
    method: 'GET',
    path: '/v1/api-keys',
    handler: 'functions/keys/list.ts',
    access: 'key',
    scope: 'keys:manage',
    tag: 'Team',
    summary: 'List the API keys of this environment',
    description: 'The keys of the environment of the calling key, newest first, keyset-paged. Secrets are never shown.',
    request: { query: pageQuery },
    responses: { 200: { description: 'Keys, most recent first; secrets are never shown.', schema: ApiKeyPage } },
    // The key rows (PARTNER#), the keys, and each one's last use (its rate counters).
    dynamo: { access: { Query: [accessPartitions.partner, platformPartitions.rateCounters], BatchGetItem: [accessPartitions.key] } },
  },
  createApiKey: {
    method: 'POST',
    path: '/v1/api-keys',
    handler: 'functions/keys/create.ts',
    access: 'key',
    scope: 'keys:manage',
    tag: 'Team',
    summary: 'Issue an API key for a member, in the environment of the calling key',
    description:
      'The key acts in the environment of the calling key. Its `key` is shown only in this response (an idempotent replay returns null). Not for another PARTNER_ADMIN: 403 team.key.other_admin.',
    request: { body: CreateApiKeyBody },
    errors: ['team.key.other_admin'],
    responses: { 201: { description: 'The key; `key` is shown only here (an idempotent replay returns it as null).', schema: ApiKeyWithSecret } },
    secretFields: ['key'],
    // The member's check, the key and its row in the partner's list (PARTNER#).
    dynamo: {
      access: {
        GetItem: [accessPartitions.partner],
        ConditionCheckItem: [accessPartitions.partner],
        PutItem: [accessPartitions.key, accessPartitions.partner],
      },
    },
  },
  renameApiKey: {
    method: 'PATCH',
    path: '/v1/api-keys/{key_id}',
    handler: 'functions/keys/rename.ts',
    access: 'key',
    scope: 'keys:manage',
    tag: 'Team',
    summary: 'Rename an API key',
    description:
      'Any key of the environment of the calling key, the one issued with your partner and revoked ones included; others answer 404. The key itself does not change: it keeps working as before.',
    request: { params: KeyIdParams, body: RenameApiKeyBody },
    responses: { 200: { description: 'The key, with its new name.', schema: ApiKey } },
    // The key and its last use (rate counters); the key and its row in the partner's list (PARTNER#), in one transaction.
    dynamo: {
      access: {
        GetItem: [accessPartitions.key],
        Query: [platformPartitions.rateCounters],
        UpdateItem: [accessPartitions.key],
        PutItem: [accessPartitions.partner],
      },
    },
  },
  revokeApiKey: {
    method: 'DELETE',
    path: '/v1/api-keys/{key_id}',
    handler: 'functions/keys/revoke.ts',
    access: 'key',
    scope: 'keys:manage',
    tag: 'Team',
    summary: 'Revoke an API key; it stops working at once',
    description: 'Only keys of the environment of the calling key are found; others answer 404. A revoked key answers 401 from the next request on.',
    request: { params: KeyIdParams },
    responses: { 200: { description: 'The revoked key.', schema: ApiKey } },
    dynamo: { access: { GetItem: [accessPartitions.key], Query: [platformPartitions.rateCounters], UpdateItem: [accessPartitions.key] } },
  },
});
