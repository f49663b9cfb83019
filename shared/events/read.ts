import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dataTable } from '../db/client';
import { inList, newestFirst } from '../db/query';
import { notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import { eventKeys } from './keys';
import { createdAtOfEventId } from './record';
import type { EventRecord } from './store';
import type { EventEnvelope, EventType } from './types';

export interface EventFilter {
  limit: number;
  type?: EventType[];
  created_from?: string;
  created_to?: string;
}

const iso = (s: string) => new Date(s).toISOString();
/** The envelope in the spec's field order, as deliveries carry it (a DynamoDB map keeps no order). */
const envelope = (e: EventEnvelope): EventEnvelope => ({ id: e.id, type: e.type, created_at: e.created_at, test: e.test, data: e.data });

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
  return { items: items.map((i) => envelope((i as unknown as EventRecord).event)), next };
}

/**
 * One event of the tenant. Its key comes from its id: a version 7 id carries its created_at, and an
 * announcement's deterministic id has a once-marker pointing at it. Another tenant's event is a 404.
 */
export async function getEvent(t: Tenant, id: string): Promise<EventEnvelope> {
  const get = async (Key: Record<string, string>) =>
    (await dataTable.client.send(new GetCommand({ TableName: dataTable.name(), Key }))).Item as Record<string, unknown> | undefined;
  const createdAt = createdAtOfEventId(id);
  const key = createdAt
    ? eventKeys.event(t.partnerId, t.env, createdAt, id)
    : ((await get(eventKeys.once(id)))?.event_ref as { pk: string; sk: string } | undefined);
  const found =
    key && key.pk === eventKeys.partition(t.partnerId, t.env) ? ((await get(key)) as unknown as (EventRecord & { example?: boolean }) | undefined) : undefined;
  if (!found || found.example || found.event.id !== id) throw notFound('Event', id);
  return envelope(found.event);
}
