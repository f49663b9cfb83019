import { createHash, randomUUID } from 'node:crypto';
import { dataTable, type Table, type TransactItem } from '../db/client';
import type { Env } from '../kernel/tenant';
import { eventKeys } from './keys';
import type { EventData } from './payloads';
import type { EventEnvelope, EventRef, EventType } from './types';

export interface RecordedEvent {
  event: EventEnvelope;
  ref: EventRef;
  partner_id: string;
  env: Env;
  /** The Put to include in the same TransactWriteItems as the state change. */
  item: TransactItem;
  /** With `once`: the Put of the event's once-marker, to write with `item` (it fails if the event was recorded before). */
  once?: TransactItem;
}

export interface RecordOptions {
  /** A deterministic id (see `eventIdFor`): with it, recording the same event twice is refused by the once-marker. */
  id?: string;
  /** `test: true` whatever the environment (test sends). */
  test?: boolean;
  /** Already dispatched: the fan-out leaves it alone (a test send delivers it itself). */
  dispatched?: boolean;
}

/** A UUID (version 8, RFC 9562) derived from `parts`: the same announcement always gets the same event id. */
export function eventIdFor(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\n')).digest('hex');
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * A durable event record, as a Put for the same TransactWriteItems as the
 * state change that causes it: no change without its event, no event without
 * its change. The webhook pipeline fans pending events out to endpoints.
 */
export function recordEvent<T extends EventType>(
  partnerId: string,
  env: Env,
  type: T,
  data: EventData<T>,
  now = new Date(),
  table: Table = dataTable,
  opts: RecordOptions = {},
): RecordedEvent {
  const event: EventEnvelope = { id: opts.id ?? randomUUID(), type, created_at: now.toISOString(), test: opts.test === true || env === 'test', data };
  const ref = eventKeys.event(partnerId, env, event.created_at, event.id);
  const dispatch = opts.dispatched
    ? { dispatch: 'DONE', dispatched_at: event.created_at, delivery_count: 1 }
    : { dispatch: 'PENDING', ...eventKeys.pending(event.created_at, event.id) };
  return {
    event,
    ref,
    partner_id: partnerId,
    env,
    item: {
      Put: {
        TableName: table.name(),
        Item: { ...ref, type: 'event', partner_id: partnerId, env, event, ...dispatch },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...(opts.id
      ? {
          once: {
            Put: {
              TableName: table.name(),
              Item: { ...eventKeys.once(event.id), type: 'event_once', event_ref: ref },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        }
      : {}),
  };
}

/** The refs of the events among transaction items, to nudge their fan-out after the commit. */
export const refsOf = (events: RecordedEvent[]): EventRef[] => events.map((e) => e.ref);
