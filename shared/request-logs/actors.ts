import { accessStore } from '../access/store';
import type { Tenant } from '../kernel/tenant';
import type { RequestLogEntry } from './entry';

/**
 * Who made the requests of a page of the log, in words: each key's name and each member's e-mail, read when the log
 * is read (never stored in it: the log keeps public values only, and a key renamed or a member's address changed is
 * shown as it is now). One Query of the partner's members and one GetItem per distinct key of the page.
 */
export function requestActors(t: Tenant) {
  const keyNames = new Map<string, string | null>();
  const emails = new Map<string, string>();
  return {
    async load<P extends { items: RequestLogEntry[] }>(page: P): Promise<P> {
      const keyIds = [...new Set(page.items.map((e) => e.key_id).filter((k): k is string => !!k && !keyNames.has(k)))];
      const [members, keys] = await Promise.all([
        page.items.some((e) => !emails.has(e.member_id)) ? accessStore.listMembers(t.partnerId) : Promise.resolve([]),
        Promise.all(keyIds.map((id) => accessStore.getKey(id))),
      ]);
      for (const m of members) emails.set(m.member_id, m.email);
      keyIds.forEach((id, i) => {
        const k = keys[i];
        keyNames.set(id, k && k.partner_id === t.partnerId ? (k.name ?? null) : null);
      });
      return page;
    },
    keyName: (keyId: string | null | undefined) => (keyId ? (keyNames.get(keyId) ?? null) : null),
    email: (memberId: string) => emails.get(memberId) ?? null,
  };
}

export type RequestActors = ReturnType<typeof requestActors>;
