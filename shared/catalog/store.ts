import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { batchWrite } from '../db/batch';
import { dataTable, type Table, type TransactItem } from '../db/client';
import { batchGet, queryAll } from '../db/query';
import { encodeIndex, type IndexParts, partsOf } from './compact-index';
import type { AdventureInput, RatePackInput } from './import-format';
import { type CatalogScope, catalogKeys, PROD } from './keys';
import { fromPrice } from './pricing';
import { bookingWindowDays } from './slots';
import type { AdventureSummary } from './summary';

export type { AdventureSummary } from './summary';

export interface CatalogMeta {
  version: number;
  index_id: string;
  /** Items of the index's head (before the compact index: of its summaries). */
  chunk_count: number;
  /** The compact index's other parts: search text items, record blocks (absent from an index written before it). */
  parts?: { text: number; blocks: number };
  adventure_count: number;
  updated_at: string;
}

export interface StoredRatePack {
  rate_pack: RatePackInput;
  adventure: { id: string; slug: string; title: string; active: boolean; city: string };
}

/**
 * A part of a loaded index is gone: a newer import replaced that index and
 * deleted its items while this container still used it (it rechecks META
 * every few seconds). The listing loads the current index and answers from it.
 */
export class IndexPartMissing extends Error {}

const missingPart = (sk: string): never => {
  throw new IndexPartMissing(`catalog index item ${sk} is gone (replaced by a newer index)`);
};

/** Index items hold up to 350 KB of the compact index, below DynamoDB's 400 KB item limit. */
const CHUNK_BYTES = 350_000;

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

  /** The bytes of index items read by key (in parallel, up to 100 per BatchGetItem), concatenated in key order. */
  const readParts = async (keys: { pk: string; sk: string }[]): Promise<Uint8Array> => {
    const got = new Map<string, Uint8Array>();
    for (let at = 0; at < keys.length; at += 100) for (const i of await batchGet(table, keys.slice(at, at + 100))) got.set(String(i.sk), i.blob as Uint8Array);
    return Buffer.concat(keys.map((k) => got.get(k.sk) ?? missingPart(k.sk)));
  };

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
    async meta(scope: CatalogScope, consistent = false): Promise<CatalogMeta | undefined> {
      return (await get(catalogKeys.meta(scope), consistent)) as CatalogMeta | undefined;
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

    /**
     * The current index's head (compact-index.ts) and where its other parts
     * are read when a query needs them. An index written before that format
     * (summaries in `entries`) is encoded here, so a container still loads it
     * until the next import replaces it.
     */
    async loadIndex(scope: CatalogScope, meta: CatalogMeta): Promise<{ head: Uint8Array; parts: IndexParts }> {
      if (!meta.parts) {
        const items = await queryPrefix(catalogKeys.partition(scope), catalogKeys.indexPrefix(meta.index_id));
        items.sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
        const encoded = encodeIndex(items.flatMap((i) => i.entries as AdventureSummary[]));
        return { head: encoded.head, parts: partsOf(encoded) };
      }
      const { index_id: id } = meta;
      const { text, blocks } = meta.parts;
      return {
        head: await readParts(Array.from({ length: meta.chunk_count }, (_, n) => catalogKeys.indexChunk(scope, id, n))),
        parts: {
          text: () => readParts(Array.from({ length: text }, (_, n) => catalogKeys.indexTextChunk(scope, id, n))),
          blocks: async (ks) => {
            if (ks.some((k) => k >= blocks)) throw new Error(`catalog index ${id} has ${blocks} blocks`);
            const got = new Map<string, Uint8Array>();
            for (let at = 0; at < ks.length; at += 100) {
              for (const i of await batchGet(
                table,
                ks.slice(at, at + 100).map((k) => catalogKeys.indexBlock(scope, id, k)),
              ))
                got.set(String(i.sk), i.blob as Uint8Array);
            }
            return ks.map((k) => {
              const { sk } = catalogKeys.indexBlock(scope, id, k);
              return got.get(sk) ?? missingPart(sk);
            });
          },
        },
      };
    },

    /** The stored size of the current index's parts, in bytes: head, search text, record blocks (the bench reports them). */
    async indexBytes(scope: CatalogScope, meta: CatalogMeta): Promise<{ head: number; text: number; blocks: number }> {
      const items = await queryPrefix(catalogKeys.partition(scope), catalogKeys.indexPrefix(meta.index_id));
      const sizes = new Map(items.map((i) => [String(i.sk), (i.blob as Uint8Array | undefined)?.byteLength ?? Buffer.byteLength(JSON.stringify(i.entries))]));
      const total = (n: number, key: (n: number) => { sk: string }) =>
        Array.from({ length: n }, (_, k) => sizes.get(key(k).sk) ?? 0).reduce((a, b) => a + b, 0);
      return {
        head: total(meta.chunk_count, (n) => catalogKeys.indexChunk(scope, meta.index_id, n)),
        text: total(meta.parts?.text ?? 0, (n) => catalogKeys.indexTextChunk(scope, meta.index_id, n)),
        blocks: total(meta.parts?.blocks ?? 0, (k) => catalogKeys.indexBlock(scope, meta.index_id, k)),
      };
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
      return store.publishIndex(scope, (await store.allAdventures(scope)).map(summarize));
    },

    /** Publishes these summaries as the listing index of a scope (rebuildIndex; the bench publishes generated ones). */
    async publishIndex(scope: CatalogScope, summaries: AdventureSummary[]): Promise<CatalogMeta> {
      const { head, text, blocks } = encodeIndex(summaries);
      const indexId = randomUUID().slice(0, 8);
      const chunks = (b: Buffer) => Array.from({ length: Math.ceil(b.length / CHUNK_BYTES) }, (_, n) => b.subarray(n * CHUNK_BYTES, (n + 1) * CHUNK_BYTES));
      const [headChunks, textChunks] = [chunks(head), chunks(text)];
      const item = (key: { pk: string; sk: string }, blob: Buffer) => ({ PutRequest: { Item: { ...key, type: 'catalog_index', blob } } });
      await batchWrite(table, [
        ...headChunks.map((b, n) => item(catalogKeys.indexChunk(scope, indexId, n), b)),
        ...textChunks.map((b, n) => item(catalogKeys.indexTextChunk(scope, indexId, n), b)),
        ...blocks.map((b, k) => item(catalogKeys.indexBlock(scope, indexId, k), b)),
      ]);
      const previous = await store.meta(scope);
      const meta: CatalogMeta = {
        version: (previous?.version ?? 0) + 1,
        index_id: indexId,
        chunk_count: headChunks.length,
        parts: { text: textChunks.length, blocks: blocks.length },
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
