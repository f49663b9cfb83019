import type { z } from 'zod';
import type { EventEnvelope } from '../events/types';
import type { DeliveryRecord, EndpointRecord } from './model';
import type { WebhookDelivery, WebhookDeliveryDetail, WebhookEndpoint } from './schemas';

export type EndpointView = z.input<typeof WebhookEndpoint>;
export type DeliveryView = z.input<typeof WebhookDelivery>;
export type DeliveryDetailView = z.input<typeof WebhookDeliveryDetail>;

/** Whether the previous secret still signs: a rotation whose overlap has not ended. */
export const openRotation = (e: EndpointRecord, now = Date.now()) =>
  !!e.previous_signing_secret && !!e.previous_secret_expires_at && Date.parse(e.previous_secret_expires_at) > now;

export function endpointView(e: EndpointRecord): EndpointView {
  return {
    id: e.id,
    url: e.url,
    event_types: e.event_types as EndpointView['event_types'],
    status: e.status,
    disabled_reason: e.status === 'DISABLED' ? (e.disabled_reason ?? 'manual') : null,
    disabled_at: e.status === 'DISABLED' ? (e.disabled_at ?? null) : null,
    failing_since: e.failing_since ?? null,
    description: e.description,
    last_http_status: e.last_http_status,
    last_error: e.last_error ?? null,
    last_delivery_at: e.last_delivery_at,
    secret_rotation: openRotation(e) ? { previous_secret_expires_at: e.previous_secret_expires_at! } : null,
    created_at: e.created_at,
    updated_at: e.updated_at,
  };
}

export function deliveryView(d: DeliveryRecord): DeliveryView {
  return {
    id: d.id,
    event_id: d.event_id,
    event_type: d.event_type,
    endpoint_id: d.endpoint_id,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    last_http_status: d.last_http_status,
    last_error: d.last_error,
    last_attempt_at: d.last_attempt_at,
    next_attempt_at: d.status === 'PENDING' ? d.next_attempt_at : null,
    delivered_at: d.delivered_at,
    dead_lettered_at: d.dead_lettered_at,
    replay_of: d.replay_of,
    test: d.test,
    test_send: d.test_send === true,
    last_attempt_id: d.last_attempt_id ?? null,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

/** The delivery with the event it carries and every attempt, oldest first, with what the receiver answered. */
export function deliveryDetailView(d: DeliveryRecord, event: EventEnvelope | null): DeliveryDetailView {
  return {
    ...deliveryView(d),
    event,
    attempt_log: (d.attempt_log ?? []).map((a) => ({
      id: a.id,
      number: a.number,
      attempted_at: a.attempted_at,
      http_status: a.http_status,
      response_time_ms: a.response_time_ms,
      error: a.error,
      result: a.result,
      response: a.response ?? null,
    })),
  };
}

/** The endpoint as created: the only answer that shows its signing secret. */
export function endpointWithSecretView(e: EndpointRecord): EndpointView & { signing_secret: string } {
  return { ...endpointView(e), signing_secret: e.signing_secret };
}
