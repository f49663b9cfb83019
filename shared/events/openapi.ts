import { createHash } from 'node:crypto';
import * as z from 'zod';
import { exampleData } from '../webhooks/examples';
import { EVENT_PAYLOADS } from './payloads';
import { EVENT_TYPES, type EventType } from './types';

type Json = Record<string, unknown>;

/** `booking.confirmed` -> `BookingConfirmed`. */
export const eventTypeName = (type: string) =>
  type
    .split(/[._]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

export const WEBHOOKS_TAG = 'Webhook events';

/** When each event is recorded (grep recordEvent in shared/), for its webhook's summary and description. */
const WHEN: Record<EventType, { summary: string; description: string }> = {
  'booking.confirmed': {
    summary: 'A booking was confirmed',
    description: 'Recorded with the booking itself, in the same transaction, when POST /bookings confirms a quote.',
  },
  'booking.cancelled': {
    summary: 'A booking was cancelled',
    description:
      'Recorded with the cancellation, in the same transaction: by you (POST /bookings/{booking_number}/cancel, the policy refund) or by the service (an operator, or the sandbox test helper; a full refund). The seats are freed and the settlement line changed in the same transaction.',
  },
  'booking.completed': {
    summary: 'A booking was completed',
    description:
      'Recorded with the change to COMPLETED, in the same transaction: by the daily job (00:30 UTC) for CONFIRMED bookings whose travel date has passed (it looks back 7 days), or at once by the sandbox test helper POST /test-helpers/bookings/{booking_number}/complete.',
  },
  'settlement.issued': {
    summary: "A month's settlement was issued",
    description:
      'Recorded once the settlement has its number and its documents are stored: fetch GET /settlements/{id}/statement.csv to reconcile, and pay the total due by the due date quoting the number.',
  },
  'settlement.paid': {
    summary: 'A settlement was paid',
    description: 'Recorded when the service records your transfer (an operator; the sandbox test helper): the settlement is closed.',
  },
  'review.moderated': {
    summary: 'A review of one of your bookings was moderated',
    description:
      'Recorded with each moderation of a review tied to one of your bookings, in the same transaction, for you only (never for consumer-site reviews): drop or refresh your cached display of it.',
  },
  'adventure.unavailable': {
    summary: 'An adventure, rate pack or slot stopped being sellable',
    description:
      "Recorded, one per recipient, with the catalog change that causes it. Live: every partner subscribed in live, whether or not it holds quotes on it. Sandbox: the tenant whose slot sold out or whose catalog the weekly refresh changed. The event's id derives from the occasion, so an announcement made twice is delivered once.",
  },
};

const ENVELOPE = {
  id: 'The event id (a UUID: version 7 carrying created_at, or version 8 derived from the occasion for adventure.unavailable); X-Service-Event-Id and webhook-id. Deduplicate on it, and read it again with GET /events/{id}',
  created_at: 'When the event was recorded (UTC), with the change that caused it; order events by it',
  test: 'true for sandbox events and test sends (POST /webhooks/{id}/test); ignore or label them in production',
};

/** The envelope of each type: what its webhook's request body is. Registered under `<Type>Event`, its data under `<Type>Data`. */
export const EVENT_SCHEMAS = Object.fromEntries(
  EVENT_TYPES.map((type) => [
    type,
    z
      .object({
        id: z.uuid().describe(ENVELOPE.id),
        type: z.literal(type).describe('The event type'),
        created_at: z.iso.datetime().describe(ENVELOPE.created_at),
        test: z.boolean().describe(ENVELOPE.test),
        data: EVENT_PAYLOADS[type].meta({ id: `${eventTypeName(type)}Data`, description: `The data of ${type} (${WHEN[type].summary.toLowerCase()}).` }),
      })
      .strict()
      .meta({ id: `${eventTypeName(type)}Event`, description: `The ${type} event, exactly as delivered: the envelope with its data.` }),
  ]),
) as unknown as { [T in EventType]: z.ZodType };

const EXAMPLE_AT = new Date('2026-11-21T10:00:00.000Z');

/** A UUID from a hash of `seed`: version 7 carrying `at` when given (a new event's id), else version 4. */
function fixedUuid(seed: string, at?: Date): string {
  const b = createHash('sha256').update(seed).digest().subarray(0, 16);
  if (at) b.writeUIntBE(at.getTime(), 0, 6);
  b[6] = (b[6]! & 0x0f) | (at ? 0x70 : 0x40);
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The test sends' example with fixed ids: the document is the same every time it is built. */
export function exampleEvent(type: EventType): Json {
  let n = 0;
  const data = JSON.parse(
    JSON.stringify(exampleData(type, EXAMPLE_AT)).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, () => fixedUuid(`${type}#${n++}`)),
  ) as Json;
  // An announcement's id derives from its occasion (a version 8 UUID), any other event's carries its time (version 7).
  const id = type === 'adventure.unavailable' ? fixedUuid(`${type}#id`).replace(/^(.{14})4/, '$18') : fixedUuid(`${type}#id`, EXAMPLE_AT);
  return { id, type, created_at: EXAMPLE_AT.toISOString(), test: false, data };
}

const VERIFY = `**Verify before trusting it**, over the raw body bytes exactly as received (before any JSON parsing), comparing in constant time:
- \`X-Service-Signature\`: hex HMAC-SHA256 of the body keyed with the endpoint's whole \`signing_secret\` (\`whsec_...\`). During a secret rotation, until its overlap ends, \`X-Service-Signature\` stays keyed with the previous secret (a receiver that has not switched keeps verifying) and \`X-Service-Signature-Next\` is keyed with the new one: a receiver that holds the new secret checks it.
- Or, with any Standard Webhooks library (\`new Webhook(signing_secret).verify(rawBody, headers)\`): \`webhook-signature\` is \`v1,\` + base64 HMAC-SHA256 of \`{webhook-id}.{webhook-timestamp}.{body}\`, keyed with the base64-decoded part of the secret after \`whsec_\` (two signatures, space-separated, during a rotation).

**Replay protection**: refuse a delivery whose \`webhook-timestamp\` is more than 5 minutes from your clock (the signature covers it), and deduplicate on the event id (\`X-Service-Event-Id\`, \`webhook-id\`, the envelope's \`id\`): one event can arrive more than once. The SDK's \`verifyWebhook\` does all of this.

**Answer** 2xx within 10 seconds and do the work afterwards. Anything else is retried after 5 min, 15 min, 1 h, 6 h and 24 h: 1 attempt plus 5 retries, 6 in all.`;

const TAG_DESCRIPTION = `What your endpoints receive (register them with POST /webhooks): one POST per event and endpoint subscribed to its type, the JSON envelope \`{id, type, created_at, test, data}\` with the headers below. Delivery is at least once and unordered: deduplicate on the event id, order by \`created_at\`, and treat the REST resources as the source of truth (GET /events lists every event). Sandbox events and test sends carry \`test: true\`.

${VERIFY}`;

const header = (name: string, required: boolean, description: string, schema: Json): Json => ({ name, in: 'header', required, description, schema });
const uuid = { type: 'string', format: 'uuid' };

/** The headers of every delivery, as components.parameters. */
export const WEBHOOK_HEADERS: Record<string, Json> = {
  WebhookSignature: header(
    'X-Service-Signature',
    true,
    "Hex HMAC-SHA256 of the raw body, keyed with the endpoint's whole signing_secret (the whsec_... string). During a secret rotation, until its overlap ends, keyed with the previous secret: a receiver that has not switched keeps verifying.",
    { type: 'string', pattern: '^[0-9a-f]{64}$' },
  ),
  WebhookSignatureNext: header(
    'X-Service-Signature-Next',
    false,
    'Only during a secret rotation (POST /webhooks/{id}/rotate-secret, until its overlap ends): the same HMAC keyed with the new secret, for a receiver that has switched already. Absent otherwise.',
    { type: 'string', pattern: '^[0-9a-f]{64}$' },
  ),
  WebhookSignaturePrevious: header(
    'X-Service-Signature-Previous',
    false,
    'Only during a secret rotation (POST /webhooks/{id}/rotate-secret, until its overlap ends): the same HMAC keyed with the previous secret, as X-Service-Signature then (kept for receivers that check it). Absent otherwise.',
    { type: 'string', pattern: '^[0-9a-f]{64}$' },
  ),
  WebhookEventId: header('X-Service-Event-Id', true, "The envelope's id: deduplicate on it.", uuid),
  WebhookDeliveryId: header(
    'X-Service-Delivery-Id',
    true,
    "This attempt's id, new for every attempt (a delivery's first attempt carries the delivery's own id): GET /webhooks/deliveries/{id} answers its delivery with every attempt.",
    uuid,
  ),
  WebhookDeliveryAttempt: header('X-Service-Delivery-Attempt', true, "The attempt's number within its delivery: 1 for the first, up to 6.", {
    type: 'integer',
    minimum: 1,
    maximum: 6,
  }),
  StandardWebhookId: header('webhook-id', true, 'Standard Webhooks: the event id (same as X-Service-Event-Id).', uuid),
  StandardWebhookTimestamp: header(
    'webhook-timestamp',
    true,
    'Standard Webhooks: Unix seconds when this attempt was sent. Refuse a delivery more than 5 minutes from your clock.',
    { type: 'integer', format: 'int64' },
  ),
  StandardWebhookSignature: header(
    'webhook-signature',
    true,
    'Standard Webhooks: v1, + base64 HMAC-SHA256 of {webhook-id}.{webhook-timestamp}.{body}, keyed with the base64-decoded part of the secret after whsec_. During a secret rotation two signatures, new then previous, space-separated.',
    { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
  ),
};

/**
 * The document's top-level `webhooks`: one POST per event type, its body the
 * envelope with that type's data, an example, the delivery headers and the
 * answers a receiver gives. `convert` turns a zod schema into the document's
 * JSON Schema (registering named schemas in components).
 */
export function webhooksSection(convert: (schema: z.ZodType) => Json): { webhooks: Json; parameters: Record<string, Json>; tag: Json } {
  const webhooks: Json = {};
  const ref = (name: string) => ({ $ref: `#/components/parameters/${name}` });
  for (const type of EVENT_TYPES) {
    webhooks[type] = {
      post: {
        operationId: `${eventTypeName(type)[0]!.toLowerCase()}${eventTypeName(type).slice(1)}Event`,
        summary: WHEN[type].summary,
        description: `${WHEN[type].description}\n\n${VERIFY}`,
        tags: [WEBHOOKS_TAG],
        security: [],
        parameters: [
          ref('WebhookSignature'),
          ref('WebhookSignatureNext'),
          ref('WebhookSignaturePrevious'),
          ref('WebhookEventId'),
          ref('WebhookDeliveryId'),
          ref('WebhookDeliveryAttempt'),
          header('X-Service-Event-Type', true, "The envelope's type.", { type: 'string', const: type }),
          ref('StandardWebhookId'),
          ref('StandardWebhookTimestamp'),
          ref('StandardWebhookSignature'),
        ],
        requestBody: {
          required: true,
          description: `The ${type} event: the envelope with its data, the exact bytes signed.`,
          content: { 'application/json': { schema: convert(EVENT_SCHEMAS[type]), example: exampleEvent(type) } },
        },
        responses: {
          '2XX': { description: 'Received: any 2xx within 10 seconds closes the delivery (the body is ignored).' },
          '4XX': {
            description:
              'Refused, e.g. a signature that does not verify or a timestamp outside 5 minutes: a failure like any other, retried (1 attempt plus 5 retries, after 5 min, 15 min, 1 h, 6 h and 24 h).',
          },
          default: {
            description:
              'Any other answer, no answer within 10 seconds, or no connection: retried after 5 min, 15 min, 1 h, 6 h and 24 h (6 attempts in all), then FAILED in the delivery log. Redirects are not followed.',
          },
        },
      },
    };
  }
  return { webhooks, parameters: WEBHOOK_HEADERS, tag: { name: WEBHOOKS_TAG, description: TAG_DESCRIPTION } };
}
