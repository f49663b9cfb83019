import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { inventoryKeys } from '../catalog/keys';
import { dataTable, type Table, type TransactItem } from '../db/client';
import { clean, newestFirst, queryAll } from '../db/query';
import { moveIndexToRows } from '../db/rows';
import type { Env } from '../kernel/tenant';
import { quoteKeys } from './keys';
import type { QuoteListRow, QuoteRecord } from './model';
import { quoteListRow } from './views';

/** An unexpired, unbooked quote, as the catalog sees it when something stops being sellable. */
export interface OpenQuote {
  id: string;
  partner_id: string;
  env: Env;
}

export function makeQuoteStore(table: Table = dataTable) {
  const rowItem = (q: QuoteRecord) => ({ ...quoteKeys.listRow(q.partner_id, q.env, q.created_at, q.id), type: 'quote_row', ...quoteListRow(q) });
  return {
    async get(id: string): Promise<QuoteRecord | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: table.name(), Key: quoteKeys.quote(id), ConsistentRead: true }));
      return r.Item ? clean<QuoteRecord>(r.Item) : undefined;
    },

    /** A new quote, with its entry in its adventure's open quotes; its list row goes in the same transaction (`listRow`). */
    put(q: QuoteRecord): TransactItem {
      return {
        Put: {
          TableName: table.name(),
          Item: {
            ...quoteKeys.quote(q.id),
            type: 'quote',
            ...q,
            ...quoteKeys.onAdventure(q.inventory, q.adventure_id, inventoryKeys.slot({ date: q.start_date, start_time: q.start_time }), q.id),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    },

    /** The quote's row in its tenant's list. */
    listRow(q: QuoteRecord): TransactItem {
      return { Put: { TableName: table.name(), Item: rowItem(q), ConditionExpression: 'attribute_not_exists(pk)' } };
    },

    /** Quotes listed through gsi1 before the list rows: their rows, and out of the index (data:list-rows). */
    moveToRows(partnerId: string, env: Env): Promise<number> {
      return moveIndexToRows(table, { index: 'gsi1', partition: quoteKeys.legacyIndexPartition(partnerId, env), row: (r) => rowItem(clean<QuoteRecord>(r)) });
    },

    /** A partner's quotes in one environment, most recent first, from their list rows; `after` is the sort key of the last row of the previous page. */
    async listForTenant(partnerId: string, env: Env, limit: number, after?: string) {
      const { items, next } = await newestFirst(table, { partition: quoteKeys.listPartition(partnerId, env) }, limit, after);
      return { items: items.map((i) => clean<QuoteListRow>(i)), next };
    },

    /** Unexpired, unbooked quotes on an adventure in one inventory, optionally on one slot or rate pack. */
    async openOn(inventory: string, adventureId: string, opts: { slotKey?: string; ratePackId?: string; now?: Date } = {}): Promise<OpenQuote[]> {
      const items = await queryAll(table, {
        IndexName: 'gsi2',
        KeyConditionExpression: opts.slotKey ? 'gsi2pk = :p AND begins_with(gsi2sk, :s)' : 'gsi2pk = :p',
        FilterExpression: `expires_at > :now AND attribute_not_exists(booking_number)${opts.ratePackId ? ' AND rate_pack_id = :rp' : ''}`,
        ExpressionAttributeValues: {
          ':p': quoteKeys.onAdventurePartition(inventory, adventureId),
          ':now': (opts.now ?? new Date()).toISOString(),
          ...(opts.slotKey ? { ':s': opts.slotKey } : {}),
          ...(opts.ratePackId ? { ':rp': opts.ratePackId } : {}),
        },
      });
      return items.map((i) => ({ id: i.id as string, partner_id: i.partner_id as string, env: i.env as Env }));
    },

    /** Marks the quote used by a booking: only while unexpired and unused. */
    consume(quoteId: string, bookingNumber: string, now: Date): TransactItem {
      return {
        Update: {
          TableName: table.name(),
          Key: quoteKeys.quote(quoteId),
          UpdateExpression: 'SET booking_number = :b',
          ConditionExpression: 'attribute_not_exists(booking_number) AND expires_at > :now',
          ExpressionAttributeValues: { ':b': bookingNumber, ':now': now.toISOString() },
        },
      };
    },
  };
}

export const quoteStore = makeQuoteStore();
