import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '../aws';
import { batchWrite } from '../batch';
import { queryAll } from '../db';
import { dataTableName } from '../config';
import { fromPrice } from './pricing';
import type { AdventureInput, RatePackInput } from './schema';

/**
 * Catalog storage. Content lives in a scope: PROD (production) or SNAP#<id>
 * (an immutable sandbox snapshot of production). Inventory (seats sold,
 * closed slots) lives per environment and tenant: LIVE or SBX#<partner>.
 *
 *   CAT#<scope> / META                 version, current index id, counts
 *   CAT#<scope> / ADV#<slug>           the adventure with its rate packs
 *   CAT#<scope> / RP#<rate pack id>    the rate pack with its adventure's basics
 *   CAT#<scope> / IDX#<index>#<n>      listing summaries, up to ~300 KB per item
 *   CAT#SANDBOX / CURRENT              the snapshot new sandbox tenants browse
 *   INV#<inventory>#<rate pack> / <date>#<time|DAY>   sold, closed
 */
export type CatalogScope = string;
export const PROD: CatalogScope = 'PROD';

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
const pk = (scope: CatalogScope) => `CAT#${scope}`;

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
    sells: a.rate_packs.map((p) => ({ weekdays: [...p.schedule.weekdays].sort(), window_days: p.booking_window_days ?? 60 })),
  };
}

const queryPrefix = (input: { pk: string; prefix: string; consistent?: boolean }) =>
  queryAll({
    TableName: dataTableName(),
    KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
    ExpressionAttributeValues: { ':p': input.pk, ':s': input.prefix },
    ConsistentRead: input.consistent,
  });

export const catalogRepository = {
  async meta(scope: CatalogScope): Promise<CatalogMeta | undefined> {
    const r = await ddb.send(new GetCommand({ TableName: dataTableName(), Key: { pk: pk(scope), sk: 'META' } }));
    return r.Item as CatalogMeta | undefined;
  },

  async adventure(scope: CatalogScope, slug: string): Promise<AdventureInput | undefined> {
    const r = await ddb.send(new GetCommand({ TableName: dataTableName(), Key: { pk: pk(scope), sk: `ADV#${slug}` } }));
    return r.Item?.adventure as AdventureInput | undefined;
  },

  async ratePack(scope: CatalogScope, ratePackId: string): Promise<StoredRatePack | undefined> {
    const r = await ddb.send(new GetCommand({ TableName: dataTableName(), Key: { pk: pk(scope), sk: `RP#${ratePackId}` } }));
    return r.Item ? { rate_pack: r.Item.rate_pack as RatePackInput, adventure: r.Item.adventure as StoredRatePack['adventure'] } : undefined;
  },

  async allAdventures(scope: CatalogScope): Promise<AdventureInput[]> {
    return (await queryPrefix({ pk: pk(scope), prefix: 'ADV#', consistent: true })).map((i) => i.adventure as AdventureInput);
  },

  /** The listing summaries of the current index, in popularity order of the build. */
  async loadIndex(scope: CatalogScope, meta: CatalogMeta): Promise<AdventureSummary[]> {
    const items = await queryPrefix({ pk: pk(scope), prefix: `IDX#${meta.index_id}#` });
    items.sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
    return items.flatMap((i) => i.entries as AdventureSummary[]);
  },

  /** Writes adventures and rate packs (upsert) into a scope; `rebuildIndex` publishes them. */
  async putAdventures(scope: CatalogScope, adventures: AdventureInput[]): Promise<void> {
    const requests = adventures.flatMap((a) => [
      { PutRequest: { Item: { pk: pk(scope), sk: `ADV#${a.slug}`, type: 'adventure', adventure: a } } },
      ...a.rate_packs.map((rp) => ({
        PutRequest: {
          Item: {
            pk: pk(scope),
            sk: `RP#${rp.id}`,
            type: 'rate_pack',
            rate_pack: rp,
            adventure: { id: a.id, slug: a.slug, title: a.title, active: a.active, city: a.city },
          } satisfies Record<string, unknown> & StoredRatePack,
        },
      })),
    ]);
    await batchWrite(dataTableName(), requests);
  },

  /**
   * Rebuilds the listing index of a scope from its adventures under a new
   * index id, then switches META to it in one write (readers never see a
   * half-written index) and deletes the previous chunks.
   */
  async rebuildIndex(scope: CatalogScope): Promise<CatalogMeta> {
    const adventures = await this.allAdventures(scope);
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
      dataTableName(),
      chunks.map((entries, n) => ({ PutRequest: { Item: { pk: pk(scope), sk: `IDX#${indexId}#${String(n).padStart(4, '0')}`, type: 'catalog_index', entries } } })),
    );
    const previous = await this.meta(scope);
    const meta: CatalogMeta = {
      version: (previous?.version ?? 0) + 1,
      index_id: indexId,
      chunk_count: chunks.length,
      adventure_count: summaries.length,
      updated_at: new Date().toISOString(),
    };
    await ddb.send(new PutCommand({ TableName: dataTableName(), Item: { pk: pk(scope), sk: 'META', type: 'catalog_meta', ...meta } }));
    if (previous) {
      const old = await queryPrefix({ pk: pk(scope), prefix: `IDX#${previous.index_id}#` });
      await batchWrite(dataTableName(), old.map((i) => ({ DeleteRequest: { Key: { pk: i.pk, sk: i.sk } } })));
    }
    return meta;
  },

  /** Copies production into a new immutable snapshot and makes it the current sandbox catalog. */
  async createSandboxSnapshot(now = new Date()): Promise<CatalogScope> {
    const scope = `SNAP#${now.toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 4)}`;
    await this.putAdventures(scope, await this.allAdventures(PROD));
    await this.rebuildIndex(scope);
    await ddb.send(new PutCommand({ TableName: dataTableName(), Item: { pk: pk('SANDBOX'), sk: 'CURRENT', scope, created_at: now.toISOString() } }));
    return scope;
  },

  async currentSandboxScope(): Promise<CatalogScope | undefined> {
    const r = await ddb.send(new GetCommand({ TableName: dataTableName(), Key: { pk: pk('SANDBOX'), sk: 'CURRENT' }, ConsistentRead: true }));
    return r.Item?.scope as string | undefined;
  },

  async deleteItems(scope: CatalogScope, sks: string[]): Promise<void> {
    await batchWrite(dataTableName(), sks.map((sk) => ({ DeleteRequest: { Key: { pk: pk(scope), sk } } })));
  },

};

export const inventoryKey = (inventory: string, ratePackId: string) => `INV#${inventory}#${ratePackId}`;

export interface InventoryRow {
  sold: number;
  closed: boolean;
}

export const inventoryRepository = {
  async get(inventory: string, ratePackId: string, slotKey: string): Promise<InventoryRow> {
    const r = await ddb.send(new GetCommand({ TableName: dataTableName(), Key: { pk: inventoryKey(inventory, ratePackId), sk: slotKey }, ConsistentRead: true }));
    return { sold: Number(r.Item?.sold ?? 0), closed: r.Item?.closed === true };
  },

  async range(inventory: string, ratePackId: string, from: string, to: string): Promise<Map<string, InventoryRow>> {
    const r = await ddb.send(
      new QueryCommand({
        TableName: dataTableName(),
        KeyConditionExpression: 'pk = :p AND sk BETWEEN :a AND :b',
        ExpressionAttributeValues: { ':p': inventoryKey(inventory, ratePackId), ':a': from, ':b': `${to}#~` },
      }),
    );
    return new Map((r.Items ?? []).map((i) => [i.sk as string, { sold: Number(i.sold ?? 0), closed: i.closed === true }]));
  },

};
