import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { batchWrite } from '../db/batch';
import { dataTable, type Table, type TransactItem } from '../db/client';
import { queryAll } from '../db/query';
import type { AdventureInput, RatePackInput } from './import-format';
import { type CatalogScope, catalogKeys, PROD } from './keys';
import { fromPrice } from './pricing';
import { bookingWindowDays } from './slots';

export interface AdventureSummary {
  id: string;
  slug: string;
  title: string;
  summary: string;
  city: string;
  category: string;
  lat: number;
  lng: number;
  duration_minutes: number;
  rating: number;
  review_count: number;
  popularity: number;
  /** Minor units. */
  from_price: number;
  booking_modes: string[];
  image: string;
  active: boolean;
  agency: string;
  /** Per rate pack: ISO weekdays it operates and its booking window in days. */
  sells: { weekdays: number[]; window_days: number }[];
}

export interface CatalogMeta {
  version: number;
  index_id: string;
  chunk_count: number;
  adventure_count: number;
  updated_at: string;
}

export interface StoredRatePack {
  rate_pack: RatePackInput;
  adventure: { id: string; slug: string; title: string; active: boolean; city: string };
}

/** Index items hold summaries up to ~300 KB, below DynamoDB's 400 KB item limit. */
const CHUNK_BYTES = 300_000;

export function summarize(a: AdventureInput): AdventureSummary {
  return {
    id: a.id,
    slug: a.slug,
    title: a.title,
    summary: a.summary,
    city: a.city,
    category: a.category,
    lat: a.location.lat,
    lng: a.location.lng,
    duration_minutes: a.duration_minutes,
    rating: a.rating,
    review_count: a.review_count,
    popularity: a.popularity,
    from_price: fromPrice(a.rate_packs),
    booking_modes: [...new Set(a.rate_packs.map((p) => p.booking_mode))].sort(),
    image: a.images[0]!,
    active: a.active,
    agency: a.agency.name,
    sells: a.rate_packs.map((p) => ({ weekdays: [...p.schedule.weekdays].sort(), window_days: bookingWindowDays(p) })),
  };
}

/** The catalog content of a scope: production (PROD) or an immutable sandbox snapshot. */
export function makeCatalogStore(table: Table = dataTable) {
  const get = async (Key: { pk: string; sk: string }, ConsistentRead = false) =>
    (await table.client.send(new GetCommand({ TableName: table.name(), Key, ConsistentRead }))).Item;
  const queryPrefix = (pk: string, prefix: string, consistent = false) =>
    queryAll(table, {
      KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
      ExpressionAttributeValues: { ':p': pk, ':s': prefix },
      ConsistentRead: consistent,
    });

  /** The adventure item and its rate-pack items, for a Put or a batch write. */
  const adventureItems = (scope: CatalogScope, a: AdventureInput) => [
    { ...catalogKeys.adventure(scope, a.slug), type: 'adventure', adventure: a },
    ...a.rate_packs.map((rp) => ({
      ...catalogKeys.ratePack(scope, rp.id),
      type: 'rate_pack',
      rate_pack: rp,
      adventure: { id: a.id, slug: a.slug, title: a.title, active: a.active, city: a.city },
    })),
  ];

  const store = {
    async meta(scope: CatalogScope): Promise<CatalogMeta | undefined> {
      return (await get(catalogKeys.meta(scope))) as CatalogMeta | undefined;
    },

    async adventure(scope: CatalogScope, slug: string): Promise<AdventureInput | undefined> {
      return (await get(catalogKeys.adventure(scope, slug)))?.adventure as AdventureInput | undefined;
    },

    async ratePack(scope: CatalogScope, ratePackId: string): Promise<StoredRatePack | undefined> {
      const item = await get(catalogKeys.ratePack(scope, ratePackId));
      return item ? { rate_pack: item.rate_pack as RatePackInput, adventure: item.adventure as StoredRatePack['adventure'] } : undefined;
    },

    async allAdventures(scope: CatalogScope): Promise<AdventureInput[]> {
      return (await queryPrefix(catalogKeys.partition(scope), catalogKeys.adventurePrefix, true)).map((i) => i.adventure as AdventureInput);
    },

    /** The listing summaries of the current index, in popularity order of the build. */
    async loadIndex(scope: CatalogScope, meta: CatalogMeta): Promise<AdventureSummary[]> {
      const items = await queryPrefix(catalogKeys.partition(scope), catalogKeys.indexPrefix(meta.index_id));
      items.sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
      return items.flatMap((i) => i.entries as AdventureSummary[]);
    },

    /** Writes adventures and rate packs (upsert) into a scope; `rebuildIndex` publishes them. */
    async putAdventures(scope: CatalogScope, adventures: AdventureInput[]): Promise<void> {
      await batchWrite(
        table,
        adventures.flatMap((a) => adventureItems(scope, a).map((Item) => ({ PutRequest: { Item } }))),
      );
    },

    /** An adventure and its rate packs as transaction Puts (a withdrawal written with its events). */
    adventurePuts(scope: CatalogScope, a: AdventureInput): TransactItem[] {
      return adventureItems(scope, a).map((Item) => ({ Put: { TableName: table.name(), Item } }));
    },

    /**
     * Rebuilds the listing index of a scope from its adventures under a new
     * index id, then switches META to it in one write (readers never see a
     * half-written index) and deletes the previous chunks.
     */
    async rebuildIndex(scope: CatalogScope): Promise<CatalogMeta> {
      const adventures = await store.allAdventures(scope);
      const summaries = adventures.map(summarize).sort((a, b) => b.popularity - a.popularity || a.slug.localeCompare(b.slug));
      const indexId = randomUUID().slice(0, 8);
      const chunks: AdventureSummary[][] = [[]];
      let bytes = 0;
      for (const s of summaries) {
        const size = Buffer.byteLength(JSON.stringify(s));
        if (bytes + size > CHUNK_BYTES && chunks.at(-1)!.length > 0) {
          chunks.push([]);
          bytes = 0;
        }
        chunks.at(-1)!.push(s);
        bytes += size;
      }
      await batchWrite(
        table,
        chunks.map((entries, n) => ({ PutRequest: { Item: { ...catalogKeys.indexChunk(scope, indexId, n), type: 'catalog_index', entries } } })),
      );
      const previous = await store.meta(scope);
      const meta: CatalogMeta = {
        version: (previous?.version ?? 0) + 1,
        index_id: indexId,
        chunk_count: chunks.length,
        adventure_count: summaries.length,
        updated_at: new Date().toISOString(),
      };
      await table.client.send(new PutCommand({ TableName: table.name(), Item: { ...catalogKeys.meta(scope), type: 'catalog_meta', ...meta } }));
      if (previous) {
        const old = await queryPrefix(catalogKeys.partition(scope), catalogKeys.indexPrefix(previous.index_id));
        await batchWrite(
          table,
          old.map((i) => ({ DeleteRequest: { Key: { pk: i.pk, sk: i.sk } } })),
        );
      }
      return meta;
    },

    /**
     * Copies production into a new immutable snapshot and makes it the current
     * sandbox catalog; `alongside` copies what comes with the catalog (the
     * consumer-site reviews) before the snapshot is published.
     */
    async createSandboxSnapshot(now = new Date(), alongside?: (scope: CatalogScope) => Promise<unknown>): Promise<CatalogScope> {
      const scope = catalogKeys.newSnapshot(now, randomUUID().slice(0, 4));
      await store.putAdventures(scope, await store.allAdventures(PROD));
      await store.rebuildIndex(scope);
      await alongside?.(scope);
      await table.client.send(new PutCommand({ TableName: table.name(), Item: { ...catalogKeys.sandboxPointer(), scope, created_at: now.toISOString() } }));
      return scope;
    },

    async currentSandboxScope(): Promise<CatalogScope | undefined> {
      return (await get(catalogKeys.sandboxPointer(), true))?.scope as string | undefined;
    },

    /** Deletes the adventures (by slug) and rate packs (by id) a re-import no longer has under that key. */
    async deleteContent(scope: CatalogScope, what: { slugs: string[]; ratePackIds: string[] }): Promise<void> {
      const keys = [...what.slugs.map((s) => catalogKeys.adventure(scope, s)), ...what.ratePackIds.map((id) => catalogKeys.ratePack(scope, id))];
      await batchWrite(
        table,
        keys.map((Key) => ({ DeleteRequest: { Key } })),
      );
    },
  };
  return store;
}

export const catalogStore = makeCatalogStore();
