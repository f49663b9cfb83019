import type { Env } from '../kernel/tenant';

/** Keys of quotes in the data table (docs/architecture.md, "Data model and access patterns", rows "quote by id" and "open quotes"). */
export const quoteKeys = {
  quote: (id: string) => ({ pk: `QUOTE#${id}`, sk: 'QUOTE' }),
  /**
   * A partner's quotes in one environment, newest first: one row per quote in the data table (what the list
   * shows), put in the quote's own transaction, so the list reads its own writes (strongly consistent).
   */
  listPartition: (partnerId: string, env: Env) => `QUOTES#${partnerId}#${env}`,
  listRow: (partnerId: string, env: Env, createdAt: string, id: string) => ({ pk: quoteKeys.listPartition(partnerId, env), sk: `${createdAt}#${id}` }),
  /** gsi1, before the list rows: a partner's quotes (what data:list-rows moves to rows, and takes out of the index). */
  legacyIndexPartition: (partnerId: string, env: Env) => `QUOTES#${partnerId}#${env}`,
  /** gsi2: the quotes on an adventure in one inventory, by slot, to tell their holders when it stops being sellable. */
  onAdventurePartition: (inventory: string, adventureId: string) => `QADV#${inventory}#${adventureId}`,
  onAdventure: (inventory: string, adventureId: string, slotKey: string, id: string) => ({
    gsi2pk: quoteKeys.onAdventurePartition(inventory, adventureId),
    gsi2sk: `${slotKey}#${id}`,
  }),
};

/** The quotes' partitions, as dynamodb:LeadingKeys patterns (the route table's `dynamo`, shared/db/grants.ts). */
export const quotePartitions = {
  quote: 'QUOTE#*',
  rows: 'QUOTES#*',
};
