import type { SlotRef } from './slots';

/**
 * Keys of the catalog in the data table (docs/architecture.md, "Data model and access
 * patterns", rows "catalog content" and "seats sold and closed slots"). Content lives in a scope:
 * PROD (production) or an immutable sandbox snapshot (SNAP#...). Inventory
 * (seats sold, closed slots) lives per environment and tenant: LIVE or
 * SBX#<partner>.
 */
export type CatalogScope = string;
export const PROD: CatalogScope = 'PROD';

const partition = (scope: CatalogScope) => `CAT#${scope}`;

export const catalogKeys = {
  partition,
  /** Version, current index id and counts of a scope. */
  meta: (scope: CatalogScope) => ({ pk: partition(scope), sk: 'META' }),
  /** The adventure with its rate packs. */
  adventure: (scope: CatalogScope, slug: string) => ({ pk: partition(scope), sk: `ADV#${slug}` }),
  adventurePrefix: 'ADV#',
  /** A rate pack with its adventure's basics, for quoting and booking by rate pack id. */
  ratePack: (scope: CatalogScope, ratePackId: string) => ({ pk: partition(scope), sk: `RP#${ratePackId}` }),
  /** The listing index head (compact-index.ts) in items of up to 350 KB, under the index id META names (before it: the summaries, ~300 KB per item). */
  indexChunk: (scope: CatalogScope, indexId: string, n: number) => ({ pk: partition(scope), sk: `IDX#${indexId}#${String(n).padStart(4, '0')}` }),
  indexPrefix: (indexId: string) => `IDX#${indexId}#`,
  /** The compact index's parts (compact-index.ts): its head in chunks (indexChunk), its search text in chunks, its record blocks. */
  indexTextChunk: (scope: CatalogScope, indexId: string, n: number) => ({ pk: partition(scope), sk: `IDX#${indexId}#T#${String(n).padStart(4, '0')}` }),
  indexBlock: (scope: CatalogScope, indexId: string, k: number) => ({ pk: partition(scope), sk: `IDX#${indexId}#R#${String(k).padStart(6, '0')}` }),
  /** The snapshot new sandbox tenants browse. */
  sandboxPointer: () => ({ pk: partition('SANDBOX'), sk: 'CURRENT' }),
  /** A new snapshot scope, named after its creation time. */
  newSnapshot: (now: Date, suffix: string): CatalogScope => `SNAP#${now.toISOString().replace(/[:.]/g, '-')}-${suffix}`,
  /** Snapshots never change: what was read from one can be cached for good. */
  isSnapshot: (scope: CatalogScope) => scope.startsWith('SNAP#'),
};

/** Seats sold and closed slots, per environment and tenant, per rate pack and slot. */
export const inventoryKeys = {
  live: 'LIVE',
  /** Each sandbox tenant counts its own seats. */
  sandbox: (partnerId: string) => `SBX#${partnerId}`,
  partition: (inventory: string, ratePackId: string) => `INV#${inventory}#${ratePackId}`,
  /** A slot: a SCHEDULED departure (date and time) or a FLEXIBLE day. Sorts by date. */
  slot: (s: SlotRef) => `${s.date}#${s.start_time ?? 'DAY'}`,
  row: (inventory: string, ratePackId: string, s: SlotRef) => ({ pk: inventoryKeys.partition(inventory, ratePackId), sk: inventoryKeys.slot(s) }),
  /** Sort-key bounds of the slots between two dates, inclusive. */
  dateRange: (from: string, to: string) => ({ from, to: `${to}#~` }),
  /**
   * Markers of what stopped being sellable in an inventory and was announced
   * (adventure.unavailable), one partition per adventure. A marker's
   * generation names the occasion, so re-running an announcement records
   * nothing twice; removing the marker (a cancellation that frees seats, an
   * import that sells the adventure again) lets the next occasion be announced.
   */
  unavailable: (inventory: string, adventureId: string, subject: string) => ({ pk: `UNAV#${inventory}#${adventureId}`, sk: subject }),
  withdrawnSubject: 'WITHDRAWN',
  ratePackRemovedSubject: (ratePackId: string) => `RP_REMOVED#${ratePackId}`,
  slotClosedSubject: (ratePackId: string, s: SlotRef) => `CLOSED#${ratePackId}#${inventoryKeys.slot(s)}`,
  soldOutSubject: (ratePackId: string, s: SlotRef) => `SOLD_OUT#${ratePackId}#${inventoryKeys.slot(s)}`,
};

/** The catalog's partitions, as dynamodb:LeadingKeys patterns (the route table's `dynamo`, shared/db/grants.ts): its content, the seats, the unavailability markers. */
export const catalogPartitions = {
  content: 'CAT#*',
  inventory: 'INV#*',
  unavailable: 'UNAV#*',
};
