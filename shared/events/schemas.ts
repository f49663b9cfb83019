import * as z from 'zod';
import { BoundedInstant } from '../http/bounds';
import { personal, pub } from '../http/data-class';
import { csvOf, PageMeta, pageQuery } from '../http/schemas';
import { EVENT_TYPES } from './types';

export const Event = z
  .object({
    id: pub(z.uuid()).describe('The event id: X-Service-Event-Id and webhook-id of its deliveries'),
    type: pub(z.enum(EVENT_TYPES)),
    created_at: pub(z.iso.datetime()),
    test: pub(z.boolean()).describe('true for sandbox events'),
    // A booking's payload names its travelers.
    data: personal(z.record(z.string(), z.unknown())).describe("The type's payload, exactly as its webhook deliveries carry it"),
  })
  .meta({ id: 'Event' });

export const EventPage = z.object({ data: z.array(Event), meta: PageMeta }).meta({ id: 'EventPage' });

export const EventListQuery = pageQuery.extend({
  type: csvOf(EVENT_TYPES).describe('Comma-separated event types, e.g. booking.confirmed,booking.cancelled'),
  created_from: BoundedInstant.optional().describe('Events created at or after this instant'),
  created_to: BoundedInstant.optional().describe('Events created at or before this instant'),
});

export const EventIdParams = z.object({ id: pub(z.uuid()) });
