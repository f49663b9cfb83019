import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { inventoryKeys } from '../catalog/keys';
import { dataTable, type Table, type TransactItem } from '../db/client';
import { clean, newestFirst, queryAll } from '../db/query';
import type { Env } from '../kernel/tenant';
import { quoteKeys } from './keys';
import type { QuoteRecord } from './model';

/** An unexpired, unbooked quote, as the catalog sees it when something stops being sellable. */
export interface OpenQuote {
  id: string;
  partner_id: string;
  env: Env;
}

export function makeQuoteStore(table: Table = dataTable) {
  return {
    async get(id: string): Promise<QuoteRecord | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: table.name(), Key: quoteKeys.quote(id) }));
      return r.Item ? clean<QuoteRecord>(r.Item) : undefined;
    },

    /** A new quote, with its entries in the tenant's list and in its adventure's open quotes. */
    put(q: QuoteRecord): TransactItem {
      return {
        Put: {
          TableName: table.name(),
          Item: {
            ...quoteKeys.quote(q.id),
            type: 'quote',
            ...q,
            ...quoteKeys.byTenant(q.partner_id, q.env, q.created_at, q.id),
            ...quoteKeys.onAdventure(q.inventory, q.adventure_id, inventoryKeys.slot({ date: q.start_date, start_time: q.start_time }), q.id),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    },

    /** A partner's quotes in one environment, most recent first; `after` is the index sort key of the last row of the previous page. */
    async listForTenant(partnerId: string, env: Env, limit: number, after?: string) {
      const { items, next } = await newestFirst(
        table,
        { index: 'gsi1', partition: quoteKeys.byTenantPartition(partnerId, env), itemKey: quoteKeys.fromTenantSort },
        limit,
        after,
      );
      return { items: items.map((i) => clean<QuoteRecord>(i)), next };
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
