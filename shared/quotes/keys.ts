import type { Env } from '../kernel/tenant';

/** Keys of quotes in the data table (docs/architecture.md, "Data model and access patterns", rows "quote by id" and "open quotes"). */
export const quoteKeys = {
  quote: (id: string) => ({ pk: `QUOTE#${id}`, sk: 'QUOTE' }),
  /** gsi1: a partner's quotes in one environment, newest first. */
  byTenantPartition: (partnerId: string, env: Env) => `QUOTES#${partnerId}#${env}`,
  byTenant: (partnerId: string, env: Env, createdAt: string, id: string) => ({
    gsi1pk: quoteKeys.byTenantPartition(partnerId, env),
    gsi1sk: `${createdAt}#${id}`,
  }),
  /** The table key of the quote whose gsi1 sort key is `gsi1sk` (to resume a page). */
  fromTenantSort: (gsi1sk: string) => quoteKeys.quote(gsi1sk.split('#')[1]!),
  /** gsi2: the quotes on an adventure in one inventory, by slot, to tell their holders when it stops being sellable. */
  onAdventurePartition: (inventory: string, adventureId: string) => `QADV#${inventory}#${adventureId}`,
  onAdventure: (inventory: string, adventureId: string, slotKey: string, id: string) => ({
    gsi2pk: quoteKeys.onAdventurePartition(inventory, adventureId),
    gsi2sk: `${slotKey}#${id}`,
  }),
};
