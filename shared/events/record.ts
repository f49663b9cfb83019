import { randomUUID } from 'node:crypto';
import { dataTableName } from '../config';

export const EVENT_TYPES = [
  'booking.confirmed',
  'booking.cancelled',
  'booking.completed',
  'settlement.issued',
  'settlement.paid',
  'review.moderated',
  'adventure.unavailable',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventEnvelope {
  id: string;
  type: EventType;
  created_at: string;
  test: boolean;
  data: Record<string, unknown>;
}

/**
 * A durable event record, as a Put for the same TransactWriteItems as the
 * state change that causes it: no change without its event, no event without
 * its change. The webhook pipeline fans pending events out to endpoints.
 */
export function eventPut(partnerId: string, env: 'live' | 'test', type: EventType, data: Record<string, unknown>, now = new Date()) {
  const event: EventEnvelope = { id: randomUUID(), type, created_at: now.toISOString(), test: env === 'test', data };
  const ref = { pk: `EVT#${partnerId}#${env}`, sk: `${event.created_at}#${event.id}` };
  return {
    event,
    ref,
    put: {
      TableName: dataTableName(),
      Item: {
        ...ref,
        type: 'event',
        partner_id: partnerId,
        env,
        event,
        dispatch: 'PENDING',
        gsi1pk: 'EVENTS#PENDING',
        gsi1sk: `${event.created_at}#${event.id}`,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}
