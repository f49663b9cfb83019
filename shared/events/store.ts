import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dataTable, type Table, type TransactItem } from '../db/client';
import { type Item, indexBefore } from '../db/query';
import type { Env } from '../kernel/tenant';
import { eventKeys } from './keys';
import type { EventEnvelope, EventRef } from './types';

export interface EventRecord {
  partner_id: string;
  env: Env;
  event: EventEnvelope;
  dispatch: 'PENDING' | 'DONE';
  /** A test send's example event: kept for its delivery log, never listed by GET /events. */
  example?: boolean;
}

/** Recorded events: read for delivery, marked dispatched once fanned out. */
export function makeEventStore(table: Table = dataTable) {
  return {
    async get(ref: EventRef, consistent = false): Promise<EventRecord | undefined> {
      return (await table.client.send(new GetCommand({ TableName: table.name(), Key: ref, ConsistentRead: consistent }))).Item as EventRecord | undefined;
    },

    /** Where an event recorded under a deterministic id (an announcement) lives, from its once-marker. */
    async onceRef(id: string): Promise<EventRef | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: table.name(), Key: eventKeys.once(id) }));
      return r.Item?.event_ref as EventRef | undefined;
    },

    /** Marks a pending event dispatched (it leaves the pending index); fails if another worker did it first. */
    markDispatched(ref: EventRef, deliveryCount: number, now: Date): TransactItem {
      return {
        Update: {
          TableName: table.name(),
          Key: ref,
          UpdateExpression: 'SET dispatch = :done, dispatched_at = :now, delivery_count = :n REMOVE gsi1pk, gsi1sk',
          ConditionExpression: 'dispatch = :pending',
          ExpressionAttributeValues: { ':done': 'DONE', ':pending': 'PENDING', ':now': now.toISOString(), ':n': deliveryCount },
        },
      };
    },

    /** Events recorded before `cutoff` and still not fanned out, a page at a time. */
    pendingBefore(cutoff: string): AsyncGenerator<Item[]> {
      return indexBefore(table, 'gsi1', eventKeys.pendingPartition, cutoff);
    },
  };
}

export const eventStore = makeEventStore();
