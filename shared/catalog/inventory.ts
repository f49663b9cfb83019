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

    /** There is no seat left on the slot (a transaction's condition: a sell-out is announced only while it lasts). */
    soldOutCheck(inventory: string, ratePackId: string, slot: SlotRef, capacity: number): TransactItem {
      return {
        ConditionCheck: {
          TableName: table.name(),
          Key: inventoryKeys.row(inventory, ratePackId, slot),
          ConditionExpression: 'sold >= :cap',
          ExpressionAttributeValues: { ':cap': capacity },
        },
      };
    },

    /** The generation of an unavailability marker (see inventoryKeys.unavailable), if it exists. */
    async marker(inventory: string, adventureId: string, subject: string): Promise<string | undefined> {
      const r = await table.client.send(
        new GetCommand({ TableName: table.name(), Key: inventoryKeys.unavailable(inventory, adventureId, subject), ConsistentRead: true }),
      );
      return r.Item?.generation as string | undefined;
    },

    /** A new unavailability marker; fails if one exists (a concurrent announcement). */
    putMarker(inventory: string, adventureId: string, subject: string, generation: string, reason: string, at: string): TransactItem {
      return {
        Put: {
          TableName: table.name(),
          Item: { ...inventoryKeys.unavailable(inventory, adventureId, subject), type: 'unavailability', generation, reason, at },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    },

    /** Removes an unavailability marker (nothing if there is none): the next occasion will be announced. */
    deleteMarker(inventory: string, adventureId: string, subject: string): TransactItem {
      return { Delete: { TableName: table.name(), Key: inventoryKeys.unavailable(inventory, adventureId, subject) } };
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
