import { dataTable } from '../db/client';
import { inList, newestFirst } from '../db/query';
import { notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import { eventKeys } from './keys';
import { createdAtOfEventId } from './record';
import { type EventRecord, eventStore } from './store';
import { type EventEnvelope, type EventType, inEnvelopeOrder } from './types';

export interface EventFilter {
  limit: number;
  type?: EventType[];
  created_from?: string;
  created_to?: string;
  booking_number?: string;
}

const iso = (s: string) => new Date(s).toISOString();

/**
 * The tenant's events, newest first: one Query of its own partition (sort key `created_at#id`), the
 * created_at range as sort-key bounds, types as a filter. Test sends' example events are left out.
 */
export async function listEvents(t: Tenant, q: EventFilter, after?: string): Promise<{ items: EventEnvelope[]; next?: string }> {
  const values: Record<string, unknown> = {};
  const names: Record<string, string> = {};
  const filters = ['attribute_not_exists(example)'];
  if (q.type?.length) {
    Object.assign(names, { '#ev': 'event', '#t': 'type' });
    filters.push(inList('#ev.#t', q.type, values, 't'));
  }
  if (q.booking_number !== undefined) {
    Object.assign(names, { '#ev': 'event', '#d': 'data' });
    values[':bn'] = q.booking_number;
    filters.push('#ev.#d.booking_number = :bn');
  }
  const { items, next } = await newestFirst(
    dataTable,
    {
      partition: eventKeys.partition(t.partnerId, t.env),
      ...(q.created_from || q.created_to
        ? { between: { from: q.created_from ? iso(q.created_from) : '0', to: `${q.created_to ? iso(q.created_to) : '9'}#\uffff` } }
        : {}),
      filter: { expression: filters.join(' AND '), names, values },
    },
    q.limit,
    after,
  );
  return { items: items.map((i) => inEnvelopeOrder((i as unknown as EventRecord).event)), next };
}

/**
 * One event of the tenant. Its key comes from its id: a version 7 id carries its created_at, and an
 * announcement's deterministic id has a once-marker pointing at it. Another tenant's event is a 404.
 */
export async function getEvent(t: Tenant, id: string): Promise<EventEnvelope> {
  const createdAt = createdAtOfEventId(id);
  const ref = createdAt ? eventKeys.event(t.partnerId, t.env, createdAt, id) : await eventStore.onceRef(id);
  const found = ref && ref.pk === eventKeys.partition(t.partnerId, t.env) ? await eventStore.get(ref) : undefined;
  if (!found || found.example || found.event.id !== id) throw notFound('Event', id);
  return inEnvelopeOrder(found.event);
}
