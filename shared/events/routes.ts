import { dynamoLine } from '../db/grants';
import { defineRoutes } from '../http/route-def';
import { eventPartitions } from './keys';
import { Event, EventIdParams, EventListQuery, EventPage } from './schemas';

/** Events: what happened, as webhooks carry it; the source of truth to resync after missed deliveries. */
export const eventRoutes = defineRoutes({
  listEvents: {
    method: 'GET',
    path: '/v1/events',
    handler: 'functions/events/list.ts',
    access: 'key',
    scope: 'webhooks:read',
    tag: 'Events',
    summary: 'Your events in this environment, newest first',
    description:
      'Every event recorded for the partner in the environment of the calling key, whether or not an endpoint received it: the source of truth beside webhooks. Keyset-paged; filter by type (comma-separated) and by a created_at range (inclusive). Events are kept at least 30 days. Example events of test sends are not listed.',
    request: { query: EventListQuery },
    responses: { 200: { description: 'A page of events.', schema: EventPage } },
    dynamo: { data: { Query: [eventPartitions.events] } },
  },
  getEvent: {
    method: 'GET',
    path: '/v1/events/{id}',
    handler: 'functions/events/get.ts',
    access: 'key',
    scope: 'webhooks:read',
    tag: 'Events',
    summary: 'One event, by its id (X-Service-Event-Id, webhook-id)',
    description: "The envelope exactly as its deliveries carry it. Another partner's or environment's event is a 404.",
    request: { params: EventIdParams },
    responses: { 200: { description: 'The event.', schema: Event } },
    // By the created_at its id carries; an announcement's deterministic id through its once-marker.
    dynamo: { data: { GetItem: [eventPartitions.events, eventPartitions.once] } },
    untested: {
      [dynamoLine('data', 'GetItem', eventPartitions.once)]:
        'an adventure.unavailable event (its id derives from the announcement) is found through its once-marker',
    },
  },
});
