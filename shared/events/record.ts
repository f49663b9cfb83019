import { randomUUID } from 'node:crypto';
import { dataTable, type Table, type TransactItem } from '../db/client';
import type { Env } from '../kernel/tenant';
import { eventKeys } from './keys';
import type { EventEnvelope, EventRef, EventType } from './types';

export interface RecordedEvent {
  event: EventEnvelope;
  ref: EventRef;
  /** The Put to include in the same TransactWriteItems as the state change. */
  item: TransactItem;
}

/**
 * A durable event record, as a Put for the same TransactWriteItems as the
 * state change that causes it: no change without its event, no event without
 * its change. The webhook pipeline fans pending events out to endpoints.
 */
export function recordEvent(
  partnerId: string,
  env: Env,
  type: EventType,
  data: Record<string, unknown>,
  now = new Date(),
  table: Table = dataTable,
): RecordedEvent {
  const event: EventEnvelope = { id: randomUUID(), type, created_at: now.toISOString(), test: env === 'test', data };
  const ref = eventKeys.event(partnerId, env, event.created_at, event.id);
  return {
    event,
    ref,
    item: {
      Put: {
        TableName: table.name(),
        Item: { ...ref, type: 'event', partner_id: partnerId, env, event, dispatch: 'PENDING', ...eventKeys.pending(event.created_at, event.id) },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
}

/** The refs of the events among transaction items, to nudge their fan-out after the commit. */
export const refsOf = (events: RecordedEvent[]): EventRef[] => events.map((e) => e.ref);
