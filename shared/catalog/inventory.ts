import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dataTable, type Table, type TransactItem } from '../db/client';
import { inventoryKeys } from './keys';
import type { SlotRef } from './slots';

export interface InventoryRow {
  sold: number;
  closed: boolean;
}

const row = (item: Record<string, unknown> | undefined): InventoryRow => ({ sold: Number(item?.sold ?? 0), closed: item?.closed === true });

/** Seats sold and closed slots, per inventory (LIVE or a sandbox tenant), rate pack and slot. */
export function makeInventoryStore(table: Table = dataTable) {
  return {
    async get(inventory: string, ratePackId: string, slot: SlotRef): Promise<InventoryRow> {
      const r = await table.client.send(new GetCommand({ TableName: table.name(), Key: inventoryKeys.row(inventory, ratePackId, slot), ConsistentRead: true }));
      return row(r.Item);
    },

    /** The rows of one rate pack between two dates, by slot sort key. */
    async range(inventory: string, ratePackId: string, from: string, to: string): Promise<Map<string, InventoryRow>> {
      const bounds = inventoryKeys.dateRange(from, to);
      const r = await table.client.send(
        new QueryCommand({
          TableName: table.name(),
          KeyConditionExpression: 'pk = :p AND sk BETWEEN :a AND :b',
          ExpressionAttributeValues: { ':p': inventoryKeys.partition(inventory, ratePackId), ':a': bounds.from, ':b': bounds.to },
        }),
      );
      return new Map((r.Items ?? []).map((i) => [i.sk as string, row(i)]));
    },

    /** Takes `seats` of the slot, never past `capacity` and never on a closed slot. */
    takeSeats(inventory: string, ratePackId: string, slot: SlotRef, seats: number, capacity: number): TransactItem {
      return {
        Update: {
          TableName: table.name(),
          Key: inventoryKeys.row(inventory, ratePackId, slot),
          UpdateExpression: 'SET sold = if_not_exists(sold, :zero) + :n',
          ConditionExpression: '(attribute_not_exists(sold) OR sold <= :max) AND (attribute_not_exists(closed) OR closed = :f)',
          ExpressionAttributeValues: { ':zero': 0, ':n': seats, ':max': capacity - seats, ':f': false },
        },
      };
    },

    /** Gives `seats` back to the slot. */
    releaseSeats(inventory: string, ratePackId: string, slot: SlotRef, seats: number): TransactItem {
      return {
        Update: {
          TableName: table.name(),
          Key: inventoryKeys.row(inventory, ratePackId, slot),
          UpdateExpression: 'SET sold = sold - :n',
          ConditionExpression: 'sold >= :n',
          ExpressionAttributeValues: { ':n': seats },
        },
      };
    },

    /** Closes a slot to sale. */
    close(inventory: string, ratePackId: string, slot: SlotRef): TransactItem {
      return {
        Update: {
          TableName: table.name(),
          Key: inventoryKeys.row(inventory, ratePackId, slot),
          UpdateExpression: 'SET closed = :t',
          ExpressionAttributeValues: { ':t': true },
        },
      };
    },
  };
}

export const inventoryStore = makeInventoryStore();
