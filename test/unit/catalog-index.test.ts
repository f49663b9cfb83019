import { describe, expect, it } from 'vitest';
import { catalogKeys } from '../../shared/catalog/keys';
import { find, fromIndex, type ListingQuery, prepare, search } from '../../shared/catalog/listing';
import { type AdventureSummary, IndexPartMissing, makeCatalogStore } from '../../shared/catalog/store';
import type { Table } from '../../shared/db/client';

type Item = Record<string, unknown>;

/** Just what the catalog store's index calls send: Get, Put, the prefix Query, BatchGet and BatchWrite, over a map. */
function fakeTable(): Table & { items: Map<string, Item>; batchGets: number } {
  const items = new Map<string, Item>();
  const id = (k: Item) => `${k.pk as string}|${k.sk as string}`;
  const table = {
    items,
    batchGets: 0,
    name: () => 'T',
    client: {
      send: async (command: { constructor: { name: string }; input: Record<string, any> }) => {
        const input = command.input;
        switch (command.constructor.name) {
          case 'GetCommand':
            return { Item: items.get(id(input.Key)) };
          case 'PutCommand':
            items.set(id(input.Item), input.Item);
            return {};
          case 'QueryCommand': {
            const { ':p': pk, ':s': prefix } = input.ExpressionAttributeValues;
            return { Items: [...items.values()].filter((i) => i.pk === pk && String(i.sk).startsWith(prefix)) };
          }
          case 'BatchGetCommand':
            table.batchGets++;
            return { Responses: { T: (input.RequestItems.T.Keys as Item[]).flatMap((k) => items.get(id(k)) ?? []) } };
          case 'BatchWriteCommand':
            for (const r of input.RequestItems.T) {
              if (r.PutRequest) items.set(id(r.PutRequest.Item), r.PutRequest.Item);
              else items.delete(id(r.DeleteRequest.Key));
            }
            return {};
          default:
            throw new Error(`unexpected ${command.constructor.name}`);
        }
      },
    } as unknown as Table['client'],
  };
  return table;
}

const summary = (i: number): AdventureSummary => ({
  id: `id-${i}`,
  slug: `adventure-${i}`,
  title: `Adventure ${i}`,
  summary: i % 4 ? 'medina walk' : 'camel trek',
  city: i % 2 ? 'Fes' : 'Marrakech',
  category: 'CULTURE',
  lat: 31 + (i % 50) / 10,
  lng: -8 + (i % 30) / 10,
  duration_minutes: 60,
  rating: 4.5,
  review_count: 1,
  popularity: (i * 7919) % 1000,
  from_price: 100 * (1 + (i % 37)),
  booking_modes: ['FLEXIBLE'],
  image: 'https://example.com/x.jpg',
  active: true,
  agency: 'Agency',
  sells: [{ weekdays: [1, 3, 5], window_days: 60 }],
});

const TODAY = '2026-11-24';
const QUERIES: ListingQuery[] = [
  { sort: 'popularity', offset: 0, limit: 25 },
  { sort: 'price', offset: 700, limit: 100 },
  { sort: '-price', q: 'camel', offset: 10, limit: 25 },
  { sort: 'distance', lat: 32, lng: -7, city: 'fes', offset: 0, limit: 50 },
];

describe('the compact index in the data table', () => {
  it('publishes in parts a cold load reads by key: the head first, the search text and blocks only when a query needs them', async () => {
    const table = fakeTable();
    const store = makeCatalogStore(table);
    const items = Array.from({ length: 1_000 }, (_, i) => summary(i));
    const meta = await store.publishIndex('PROD', items);
    expect(meta.parts).toEqual({ text: 1, blocks: 4 });
    const { head, parts } = await store.loadIndex('PROD', meta);
    expect(table.batchGets).toBe(1);
    const loaded = fromIndex(head, parts);
    const reference = prepare(items);
    await find(loaded, QUERIES[0]!, TODAY);
    // One block for the first page, no search text.
    expect(table.batchGets).toBe(2);
    for (const q of QUERIES) expect(await find(loaded, q, TODAY)).toEqual(search(reference, q, TODAY));
  });

  it('a part deleted by a newer import is IndexPartMissing (the listing then loads the current index)', async () => {
    const store = makeCatalogStore(fakeTable());
    const items = Array.from({ length: 600 }, (_, i) => summary(i));
    const first = await store.publishIndex('PROD', items);
    const { head, parts } = await store.loadIndex('PROD', first);
    const held = fromIndex(head, parts);
    await store.publishIndex('PROD', items);
    await expect(find(held, { sort: 'popularity', offset: 0, limit: 5 }, TODAY)).rejects.toBeInstanceOf(IndexPartMissing);
    await expect(store.loadIndex('PROD', first)).rejects.toBeInstanceOf(IndexPartMissing);
  });

  it('loads an index written before the compact format (summaries in entries) with the same answers', async () => {
    const table = fakeTable();
    const store = makeCatalogStore(table);
    const items = Array.from({ length: 300 }, (_, i) => summary(i));
    const meta = { version: 1, index_id: 'old1', chunk_count: 2, adventure_count: 300, updated_at: TODAY };
    const put = (key: { pk: string; sk: string }, rest: Item) => table.items.set(`${key.pk}|${key.sk}`, { ...key, ...rest });
    put(catalogKeys.meta('PROD'), meta);
    for (const [n, entries] of [items.slice(0, 150), items.slice(150)].entries()) put(catalogKeys.indexChunk('PROD', 'old1', n), { entries });
    const { head, parts } = await store.loadIndex('PROD', meta);
    const loaded = fromIndex(head, parts);
    for (const q of QUERIES) expect(await find(loaded, q, TODAY)).toEqual(search(prepare(items), q, TODAY));
  });
});
