import type { z } from 'zod';
import type { ApiKeyInUse, ApiKeyRecord } from '../access/model';
import type { Tenant } from '../kernel/tenant';
import type { ConsoleMember, RemovedMember } from './console-users';
import type { ApiKey, RemovedTeamMember, TeamMember } from './schemas';

export type MemberView = z.input<typeof TeamMember>;
export type RemovedMemberView = z.input<typeof RemovedTeamMember>;
export type KeyView = z.input<typeof ApiKey>;

const memberFields = (m: ConsoleMember | RemovedMember, t: Tenant) => ({
  id: m.member_id,
  email: m.email,
  role: m.role,
  is_you: m.member_id === t.memberId,
  first_name: m.first_name,
  last_name: m.last_name,
  created_at: m.created_at,
});

export function memberView(m: ConsoleMember, t: Tenant): MemberView {
  return { ...memberFields(m, t), enabled: m.enabled, status: m.status };
}

/** The answer of a removal: what is true after it. */
export function removedMemberView(m: RemovedMember, t: Tenant): RemovedMemberView {
  return { ...memberFields(m, t), enabled: false, status: 'REMOVED', removed_at: m.removed_at };
}

export function keyView(k: ApiKeyInUse): KeyView {
  return {
    key_id: k.key_id,
    id: k.key_id,
    name: k.name ?? null,
    member_id: k.member_id,
    environment: k.env,
    status: k.revoked_at ? 'REVOKED' : 'ACTIVE',
    created_at: k.created_at,
    revoked_at: k.revoked_at ?? null,
    issued_by: k.issued_by ?? null,
    last_used_at: k.last_used_at ?? null,
  };
}

/** A key as issued: the only answer that shows the full key (never stored for replays). */
export function newKeyView(k: { key: string; record: ApiKeyRecord }): KeyView & { key: string } {
  return { ...keyView(k.record), key: k.key };
}
