import { randomUUID } from 'node:crypto';
import { type EventEnvelope, type EventRef, inEnvelopeOrder } from '../events/types';
import type { DeliveryRecord, EndpointRecord } from './model';

/** A new delivery of an event to one endpoint, PENDING and due at once. */
export function newDelivery(
  ev: EventEnvelope,
  ref: EventRef,
  ep: Pick<EndpointRecord, 'partner_id' | 'env' | 'id' | 'url'>,
  now: Date,
  replayOf: string | null = null,
): DeliveryRecord {
  const iso = now.toISOString();
  return {
    id: randomUUID(),
    partner_id: ep.partner_id,
    env: ep.env,
    event_id: ev.id,
    event_type: ev.type,
    event_ref: ref,
    // Carried so an attempt reads the delivery it claims and nothing else.
    event: ev,
    endpoint_id: ep.id,
    url: ep.url,
    status: 'PENDING',
    attempts: 0,
    last_http_status: null,
    last_error: null,
    last_attempt_at: null,
    next_attempt_at: iso,
    delivered_at: null,
    dead_lettered_at: null,
    replay_of: replayOf,
    test: ev.test,
    created_at: iso,
    updated_at: iso,
  };
}

/** The envelope in its documented field order (DynamoDB maps do not keep order). */
export function envelopeBytes(e: EventEnvelope): string {
  return JSON.stringify(inEnvelopeOrder(e));
}
