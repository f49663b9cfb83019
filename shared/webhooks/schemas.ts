import * as z from 'zod';
import { BOOKING_NUMBER_RE } from '../bookings/rules';
import { Event } from '../events/schemas';
import { EVENT_TYPES } from '../events/types';
import { BoundedInstant, singleLine } from '../http/bounds';
import { personal, pub, secret } from '../http/data-class';
import { csvOf, PageMeta, pageQuery } from '../http/schemas';

const EventType = z.enum(EVENT_TYPES).meta({ id: 'EventType', dataClass: 'public' });
const EventTypes = z
  .array(EventType)
  .min(1)
  .refine((types) => new Set(types).size === types.length, 'a list naming each event type at most once')
  .meta({ description: 'Each type at most once', uniqueItems: true });
const Description = personal(singleLine(z.string()).max(200));
// A receiver's URL often carries its own credential (a token in the path or the query).
const Url = secret(z.string());

export const WebhookEndpoint = z
  .object({
    id: pub(z.uuid()),
    url: secret(z.url()),
    event_types: z.array(EventType),
    status: pub(z.enum(['ACTIVE', 'DISABLED'])),
    disabled_reason: pub(z.enum(['failing', 'manual']))
      .nullable()
      .describe('Why a DISABLED endpoint is: failing (every delivery failed for 5 days: auto-disabled) or manual (PATCH); null when ACTIVE'),
    disabled_at: pub(z.iso.datetime()).nullable(),
    failing_since: pub(z.iso.datetime())
      .nullable()
      .describe('Every attempt since then has failed (null once one succeeds): the team is warned after 24 h, the endpoint disabled after 5 days'),
    description: personal(z.string()).nullable(),
    last_http_status: pub(z.number().int()).nullable().describe('Last HTTP status received from this endpoint'),
    last_error: pub(z.string())
      .nullable()
      .describe(
        'What went wrong in the last attempt (HTTP 503, timeout after 10000 ms, connection refused...); null when it succeeded or before the first attempt',
      ),
    last_delivery_at: pub(z.iso.datetime()).nullable(),
    secret_rotation: z
      .object({
        previous_secret_expires_at: pub(z.iso.datetime()).describe(
          'Until then X-Service-Signature stays keyed with the previous secret (also in X-Service-Signature-Previous), the new secret signs X-Service-Signature-Next, and webhook-signature carries both',
        ),
      })
      .nullable()
      .describe('An open secret rotation, or null; never a secret'),
    created_at: pub(z.iso.datetime()),
    updated_at: pub(z.iso.datetime()),
  })
  .meta({ id: 'WebhookEndpoint' });

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  signing_secret: secret(z.string())
    .nullable()
    .describe('Shown only in this response (null in an idempotent replay): the HMAC-SHA256 key of X-Service-Signature'),
}).meta({ id: 'WebhookEndpointWithSecret' });

export const CreateWebhookBody = z
  .object({
    url: Url.min(1).max(2048).describe('HTTPS URL on a public address'),
    event_types: EventTypes,
    description: Description.optional(),
  })
  .strict()
  .meta({ id: 'CreateWebhookRequest' });

export const UpdateWebhookBody = z
  .object({
    url: Url.min(1).max(2048).optional(),
    event_types: EventTypes.optional(),
    status: pub(z.enum(['ACTIVE', 'DISABLED'])).optional(),
    description: Description.nullable().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one of url, event_types, status, description')
  .meta({ id: 'UpdateWebhookRequest' });

export const WebhookEndpointListed = WebhookEndpoint.extend({
  pending_deliveries: pub(z.number().int().min(0)).describe(
    'Deliveries to this endpoint waiting for an attempt (a first one, or a retry), counted in the same transactions that change their status: exact. An endpoint created before the service kept these counts is counted from an index instead (a delivery of the last second may be missed)',
  ),
}).meta({ id: 'WebhookEndpointListed' });

export const WebhookList = z
  .object({
    data: z.array(WebhookEndpointListed),
    pending_complete: pub(z.boolean()).describe(
      'false when an endpoint counted from the index (created before the service kept exact counts) has more deliveries pending across the service than one list reads (5 000): its pending_deliveries is then a lower bound',
    ),
  })
  .meta({ id: 'WebhookEndpointList' });
export const WebhookIdParams = z.object({ id: pub(z.uuid()) });
export const DeletedWebhook = z.object({ id: pub(z.uuid()), deleted: pub(z.literal(true)) }).meta({ id: 'DeletedWebhookEndpoint' });

/** The longest overlap of a rotation: 7 days. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;

export const RotateWebhookSecretBody = z
  .object({
    overlap_seconds: pub(z.number().int().min(0).max(MAX_ROTATION_OVERLAP_SECONDS))
      .default(24 * 3600)
      .describe(
        'How long the previous secret keeps signing deliveries beside the new one, in seconds: default 86400 (24 h), at most 604800 (7 days). 0 revokes it at once (after a leak), and may end a rotation that is still open.',
      ),
  })
  .strict()
  .meta({ id: 'RotateWebhookSecretRequest' });

export const RecoverWebhookBody = z
  .object({
    since: BoundedInstant.describe('Re-send the events whose deliveries to this endpoint, created at or after this instant, all failed'),
    enable: pub(z.boolean()).default(false).describe('Set a DISABLED endpoint ACTIVE first (else a DISABLED endpoint is a 409 webhook.endpoint.disabled)'),
  })
  .strict()
  .meta({ id: 'RecoverWebhookRequest' });

export const RecoverWebhookResult = z
  .object({
    endpoint: WebhookEndpoint,
    since: pub(z.iso.datetime()),
    resent: pub(z.number().int()).describe('Events that had only failed deliveries to the endpoint since `since` and got a new delivery now'),
    brought_forward: pub(z.number().int()).describe(
      'Deliveries to the endpoint since `since`, not yet DELIVERED, whose next attempt now comes at once, once: one waiting for a retry is attempted now instead of at its scheduled time; one whose attempt is in flight is attempted again as soon as that attempt fails',
    ),
    truncated: pub(z.boolean()).describe('More than one call handles (500 events): call again with the same since; nothing is sent twice'),
  })
  .meta({ id: 'RecoverWebhookResult' });

export const AgeFailuresBody = z
  .object({
    hours: pub(
      z
        .number()
        .positive()
        .max(24 * 365),
    ).describe("How many hours ago the endpoint's failure streak should have started: 25 meets the warning, 121 the auto-disable"),
  })
  .strict()
  .meta({ id: 'AgeWebhookFailuresRequest' });

export const TestWebhookBody = z
  .object({
    event_type: EventType.optional().describe("The type of the example event to send (default: the endpoint's first subscribed type); any type may be tried"),
  })
  .strict()
  .meta({ id: 'TestWebhookRequest' });

export const WebhookTestResult = z
  .object({
    event_id: pub(z.uuid()),
    event_type: EventType,
    delivery_id: pub(z.uuid()).describe('The test send in the delivery log (test_send: true); GET /webhooks/deliveries/{id} shows its attempt'),
    delivered: pub(z.boolean()).describe('true when the endpoint answered 2xx within the 10 s timeout'),
    http_status: pub(z.number().int()).nullable(),
    response_time_ms: pub(z.number().int()),
    error: pub(z.string()).nullable(),
  })
  .meta({ id: 'WebhookTestResult' });

const DeliveryStatus = z.enum(['PENDING', 'DELIVERED', 'FAILED']).meta({ id: 'WebhookDeliveryStatus', dataClass: 'public' });

export const WebhookDelivery = z
  .object({
    id: pub(z.uuid()),
    event_id: pub(z.uuid()),
    event_type: EventType,
    endpoint_id: pub(z.uuid()),
    url: secret(z.string()),
    status: DeliveryStatus.describe('PENDING (first attempt or a retry is due), DELIVERED (a 2xx arrived), FAILED (all attempts failed; dead-lettered)'),
    attempts: pub(z.number().int()).describe(
      "Attempts made so far: at most 6, the first and 5 retries. The spec's 'up to 5 attempts with waits of 5 min, 15 min, 1 h, 6 h, 24 h' is read as 5 retries after the first attempt failed: one per wait, 6 attempts in all.",
    ),
    last_http_status: pub(z.number().int()).nullable(),
    last_error: pub(z.string()).nullable(),
    last_attempt_at: pub(z.iso.datetime()).nullable(),
    next_attempt_at: pub(z.iso.datetime()).nullable(),
    delivered_at: pub(z.iso.datetime()).nullable(),
    dead_lettered_at: pub(z.iso.datetime()).nullable(),
    replay_of: pub(z.uuid()).nullable().describe('The delivery this one re-drives'),
    test: pub(z.boolean()).describe('The envelope carries test: true (sandbox event or test send)'),
    test_send: pub(z.boolean()).describe('Sent by POST /webhooks/{id}/test: attempted once, never retried'),
    last_attempt_id: pub(z.uuid()).nullable().describe('X-Service-Delivery-Id of the latest attempt'),
    created_at: pub(z.iso.datetime()),
    updated_at: pub(z.iso.datetime()),
  })
  .meta({ id: 'WebhookDelivery' });

export const WebhookAttempt = z
  .object({
    id: pub(z.uuid()).describe('The X-Service-Delivery-Id the receiver got for this attempt'),
    number: pub(z.number().int()).describe('X-Service-Delivery-Attempt: 1 for the first attempt'),
    attempted_at: pub(z.iso.datetime()).describe('When the attempt was sent'),
    http_status: pub(z.number().int()).nullable(),
    response_time_ms: pub(z.number().int()).nullable(),
    error: pub(z.string()).nullable(),
    result: pub(z.enum(['SUCCEEDED', 'FAILED']))
      .nullable()
      .describe('null while the attempt is in flight, or if the worker stopped before recording it (the attempt is then sent again under a new id)'),
    response: z
      .object({
        // The receiver's own answer: free text of the partner's system, which may name a person or carry a token.
        headers: personal(z.record(z.string(), z.string())).describe('Its headers, names in lower case (at most 32, each value cut to 256 characters)'),
        body: personal(z.string())
          .meta({ examples: ['{"received":true}'] })
          .describe('The first KB (1024 bytes) of its body, as UTF-8 text'),
        body_truncated: pub(z.boolean()).describe('The body was longer than what is kept'),
      })
      .nullable()
      .describe(
        'What the receiver answered: null when nothing did (timeout, connection failed, refused address), while the attempt is in flight, and on attempts recorded before answers were kept',
      ),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const WebhookDeliveryDetail = WebhookDelivery.extend({
  event: Event.nullable().describe(
    'The event this delivery carries, exactly as it is sent (the payload); null if it can no longer be read (events are kept at least 30 days)',
  ),
  attempt_log: z.array(WebhookAttempt).describe('Every attempt, oldest first'),
}).meta({ id: 'WebhookDeliveryDetail' });

export const DeliveryPage = z.object({ data: z.array(WebhookDelivery), meta: PageMeta }).meta({ id: 'WebhookDeliveryPage' });

export const DeliveryListQuery = pageQuery.extend({
  status: csvOf(DeliveryStatus.options).describe('Comma-separated, e.g. PENDING,FAILED'),
  endpoint_id: pub(z.uuid()).optional().describe('Only the deliveries to this endpoint'),
  event_id: pub(z.uuid()).optional().describe('Only the deliveries of this event (X-Service-Event-Id)'),
  event_type: csvOf(EVENT_TYPES).describe('Comma-separated event types, e.g. booking.confirmed,booking.cancelled'),
  booking_number: pub(z.string().regex(BOOKING_NUMBER_RE, 'a booking number like PTB-7K3M-Q9XD'))
    .optional()
    .describe("Only the deliveries of events about this booking (their data's booking_number): booking.* and review.moderated"),
});
