import { createHash, randomBytes } from 'node:crypto';
import { dataTable, type Table, type TransactItem } from '../db/client';
import { notAfterNow } from '../kernel/clock';
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
  /** An example event of a test send: kept for its delivery log, never listed by GET /events. */
  example?: boolean;
}

/**
 * A new event's id: a UUID version 7 (RFC 9562), whose first 48 bits are the event's `created_at` in
 * milliseconds. GET /events/{id} reads the event's key from its id, with no lookup item to write.
 */
export function newEventId(now: Date): string {
  const b = randomBytes(16);
  b.writeUIntBE(now.getTime(), 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The `created_at` a version 7 event id carries, or undefined for ids of another version. */
export function createdAtOfEventId(id: string): string | undefined {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)) return undefined;
  return new Date(Number.parseInt(id.replace('-', '').slice(0, 12), 16)).toISOString();
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
  const event: EventEnvelope = { id: opts.id ?? newEventId(now), type, created_at: now.toISOString(), test: opts.test === true || env === 'test', data };
  const ref = eventKeys.event(partnerId, env, event.created_at, event.id);
  const dispatch = opts.dispatched
    ? { dispatch: 'DONE', dispatched_at: event.created_at, delivery_count: 1 }
    : { dispatch: 'PENDING', ...eventKeys.pending(notAfterNow(event.created_at), event.id) };
  return {
    event,
    ref,
    partner_id: partnerId,
    env,
    item: {
      Put: {
        TableName: table.name(),
        Item: { ...ref, type: 'event', partner_id: partnerId, env, event, ...dispatch, ...(opts.example ? { example: true } : {}) },
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
