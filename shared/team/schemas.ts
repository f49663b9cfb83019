import * as z from 'zod';
import { LAST_USE_RETENTION_DAYS } from '../access/model';
import { Environment, Role } from '../access/schemas';
import { label, singleLine } from '../http/bounds';
import { personal, pub, secret } from '../http/data-class';
import { KeyId, keyIdAlias, page } from '../http/schemas';

export const MEMBER_STATUSES = ['INVITED', 'ACTIVE', 'DISABLED'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

export const TeamMember = z
  .object({
    id: pub(z.uuid()).describe('Identity-provider user id'),
    email: personal(z.string()),
    role: Role,
    enabled: pub(z.boolean()).describe('false = account disabled; its API keys stop working'),
    is_you: pub(z.boolean()).describe('true for the member authenticated on the current request'),
    first_name: personal(z.string()),
    last_name: personal(z.string()),
    created_at: pub(z.iso.datetime()),
    status: pub(z.enum(MEMBER_STATUSES)).describe(
      'INVITED until the first sign-in to the console with the e-mailed temporary password, then ACTIVE; DISABLED while enabled is false. A member without a console user (made before the console) is ACTIVE.',
    ),
  })
  .meta({ id: 'TeamMember' });

export const RemovedTeamMember = TeamMember.extend({
  enabled: pub(z.literal(false)).describe('A removed member can do nothing: its keys and sessions fail from the next request'),
  status: pub(z.literal('REMOVED')),
  removed_at: pub(z.iso.datetime()),
}).meta({ id: 'RemovedTeamMember' });

export const TeamMemberList = z.object({ data: z.array(TeamMember) }).meta({ id: 'TeamMemberList' });
export const UpdateRoleBody = z.object({ role: Role }).strict().meta({ id: 'UpdateRoleRequest' });
const Name = personal(singleLine(z.string()).trim().min(1).max(100));
export const InviteMemberBody = z
  .object({
    email: personal(
      z
        .email()
        .max(254)
        .transform((e) => e.toLowerCase()),
    ).describe('Where the invitation goes, and what the member signs in with (kept in lower case); one console user per address'),
    role: Role,
    first_name: Name.describe('One line, 1 to 100 characters'),
    last_name: Name.describe('One line, 1 to 100 characters'),
  })
  .strict()
  .meta({ id: 'InviteMemberRequest' });
export const UpdateMemberBody = z
  .object({ enabled: pub(z.boolean()).describe("false disables the member: its keys and console sessions fail from the next request, and it can't sign in") })
  .strict()
  .meta({ id: 'UpdateMemberRequest' });
export const UserIdParams = z.object({ user_id: pub(z.uuid()).describe('Console user id, from GET /team/members') });

/** A key's name: what staff tell keys apart by, before revoking one (free text: it may name a person). */
export const KeyName = personal(label(z.string()).trim().min(1).max(64));

export const ApiKey = z
  .object({
    key_id: KeyId,
    id: keyIdAlias('key_id'),
    name: personal(z.string()).nullable().describe('What the partner calls the key, for example the system that holds it; null if it gave none'),
    member_id: pub(z.uuid()),
    environment: Environment,
    status: pub(z.enum(['ACTIVE', 'REVOKED'])),
    created_at: pub(z.iso.datetime()),
    revoked_at: pub(z.iso.datetime()).nullable(),
    issued_by: pub(z.uuid()).nullable().describe('Member who issued the key through the API; null for keys issued by the service operators'),
    last_used_at: pub(z.iso.datetime())
      .nullable()
      .describe(
        `When the key was last used, to the minute (its first request in the newest minute it made any); null if it made none in the last ${LAST_USE_RETENTION_DAYS} days. Revoked keys keep theirs.`,
      ),
  })
  .meta({ id: 'ApiKey' });
export const ApiKeyWithSecret = ApiKey.extend({
  key: secret(z.string()).nullable().describe('The full key, shown only in this response (null in an idempotent replay)'),
}).meta({ id: 'ApiKeyWithSecret' });
export const CreateApiKeyBody = z
  .object({
    member_id: pub(z.uuid()).describe('Member who will own the key; the key acts in the environment of the key that creates it'),
    name: KeyName.optional().describe(
      'What you call the key, for example the system that will hold it ("payments-prod-eu1"): shown in the key list and the console. Optional; one line of 1 to 64 characters, without bidirectional controls; PATCH /api-keys/{key_id} renames it.',
    ),
  })
  .strict()
  .meta({ id: 'CreateApiKeyRequest' });
export const RenameApiKeyBody = z
  .object({ name: KeyName.describe('The new name: one line of 1 to 64 characters, without bidirectional controls, as when the key is issued') })
  .strict()
  .meta({ id: 'RenameApiKeyRequest' });
export const KeyIdParams = z.object({
  key_id: pub(z.string().regex(/^[a-z0-9]{12}$/)).describe('Key id (12 characters)'),
});
export const ApiKeyPage = page(ApiKey).meta({ id: 'ApiKeyPage' });
