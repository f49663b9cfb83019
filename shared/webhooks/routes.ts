import { dynamoLine } from '../db/grants';
import { eventPartitions } from '../events/keys';
import { defineRoutes } from '../http/route-def';
import { EmptyBody } from '../http/schemas';
import { webhookPartitions } from './keys';
import { MANUAL_SENDS_PER_MINUTE } from './model';
import {
  AgeFailuresBody,
  CreateWebhookBody,
  DeletedWebhook,
  DeliveryListQuery,
  DeliveryPage,
  RecoverWebhookBody,
  RecoverWebhookResult,
  RotateWebhookSecretBody,
  TestWebhookBody,
  UpdateWebhookBody,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookIdParams,
  WebhookList,
  WebhookTestResult,
} from './schemas';

const SEND_BUDGET = `Replays and test sends share a budget: ${MANUAL_SENDS_PER_MINUTE.endpoint} a minute to one endpoint, ${MANUAL_SENDS_PER_MINUTE.environment} to all the endpoints of the environment; beyond it, 429 webhook.send.budget_exceeded with Retry-After, and nothing is sent.`;

/** Webhooks: endpoints that receive signed events, and the delivery log. */
export const webhookRoutes = defineRoutes({
  createWebhook: {
    method: 'POST',
    path: '/v1/webhooks',
    handler: 'functions/webhooks/create.ts',
    access: 'key',
    scope: 'webhooks:write',
    tag: 'Webhooks',
    summary: 'Register an endpoint; the signing secret is shown only here',
    description:
      'An HTTPS URL that resolves to a public address (else 422 webhook.url.refused) and the event types it receives; at most 16 endpoints per environment (422 webhook.endpoint.limit). signing_secret is the HMAC-SHA256 key of X-Service-Signature.',
    request: { body: CreateWebhookBody },
    errors: ['webhook.url.refused', 'webhook.endpoint.limit'],
    responses: { 201: { description: 'The endpoint with its signing_secret.', schema: WebhookEndpointWithSecret } },
    secretFields: ['signing_secret'],
    // The endpoint, the environment's endpoint count and the endpoint's count of PENDING deliveries (WH#), its subscriptions (WHSUB#).
    dynamo: { data: { UpdateItem: [webhookPartitions.endpoints], PutItem: [webhookPartitions.endpoints, webhookPartitions.subscribers] } },
  },
  listWebhooks: {
    method: 'GET',
    path: '/v1/webhooks',
    handler: 'functions/webhooks/list.ts',
    access: 'key',
    scope: 'webhooks:read',
    tag: 'Webhooks',
    summary: 'Your endpoints in this environment (at most 16)',
    description:
      'Every endpoint of the environment of the calling key, with its last answer and error, its failure streak (failing_since) and how many of its deliveries are pending; never their secrets.',
    responses: { 200: { description: 'The endpoints, without secrets.', schema: WebhookList } },
    // The endpoints and their counts of PENDING deliveries (WH#); the pending index (gsi2) for an endpoint older than the counts.
    dynamo: { data: { Query: [webhookPartitions.endpoints], queryIndexes: ['gsi2'] } },
  },
  listWebhookDeliveries: {
    method: 'GET',
    path: '/v1/webhooks/deliveries',
    handler: 'functions/webhooks/deliveries.ts',
    access: 'key',
    scope: 'webhooks:read',
    tag: 'Webhooks',
    summary: 'Delivery log, most recent first (by created_at)',
    description: 'Keyset-paged. Filter by status (comma-separated: PENDING, DELIVERED, FAILED), endpoint_id and event_id, combinable.',
    request: { query: DeliveryListQuery },
    responses: { 200: { description: 'A page of deliveries.', schema: DeliveryPage } },
    // The partner's delivery index.
    dynamo: { data: { queryIndexes: ['gsi1'] } },
  },
  getWebhookDelivery: {
    method: 'GET',
    path: '/v1/webhooks/deliveries/{id}',
    handler: 'functions/webhooks/delivery.ts',
    access: 'key',
    scope: 'webhooks:read',
    tag: 'Webhooks',
    summary: 'One delivery with every attempt, by its id or by an attempt id (X-Service-Delivery-Id)',
    description: 'The id is the delivery id or any attempt id (an X-Service-Delivery-Id your receiver logged); attempt_log lists every attempt, oldest first.',
    request: { params: WebhookIdParams },
    responses: { 200: { description: 'The delivery and its attempts.', schema: WebhookDeliveryDetail } },
    // By its id, or by an attempt's id through its lookup; its event when the delivery predates carrying it.
    dynamo: { data: { GetItem: [webhookPartitions.delivery, webhookPartitions.attempt, eventPartitions.events] } },
    untested: {
      [dynamoLine('data', 'GetItem', eventPartitions.events)]:
        'a delivery created before deliveries carried their event (b7025ef) reads it from the event record; every delivery made since carries it',
    },
  },
  replayWebhookDelivery: {
    method: 'POST',
    path: '/v1/webhooks/deliveries/{id}/replay',
    handler: 'functions/webhooks/replay.ts',
    access: 'key',
    scope: 'webhooks:write',
    tag: 'Webhooks',
    summary: 'Re-drive one delivery: a PENDING one is attempted now; a DELIVERED or FAILED one gets a new delivery of the same event',
    description: `The id is a delivery id or an attempt id. One delivery carries the event at a time: a PENDING delivery is not duplicated, its next attempt is made due now (a retry scheduled for later is then skipped). ${SEND_BUDGET}`,
    request: { params: WebhookIdParams, body: EmptyBody },
    errors: ['webhook.endpoint.deleted', 'webhook.send.budget_exceeded'],
    responses: {
      202: {
        description: 'The delivery that will be attempted: the same one if it was PENDING, else a new one whose replay_of names the original.',
        schema: WebhookDelivery,
      },
    },
    publishesEvents: true,
    // The budget spent; a PENDING delivery made due now; any other, a new delivery of its event to its endpoint (with
    // the endpoint's row of it, and its count of PENDING deliveries raised).
    dynamo: {
      data: {
        GetItem: [webhookPartitions.delivery, webhookPartitions.attempt, eventPartitions.events, webhookPartitions.endpoints],
        UpdateItem: [webhookPartitions.delivery, webhookPartitions.sendBudget, webhookPartitions.endpoints],
        PutItem: [webhookPartitions.delivery, webhookPartitions.endpointDeliveries],
      },
    },
  },
  getWebhook: {
    method: 'GET',
    path: '/v1/webhooks/{id}',
    handler: 'functions/webhooks/get.ts',
    access: 'key',
    scope: 'webhooks:read',
    tag: 'Webhooks',
    summary: 'One endpoint (never its secret)',
    description:
      'URL, event types, status (ACTIVE or DISABLED), last HTTP status and last delivery time. The signing secret is shown only when the endpoint is created.',
    request: { params: WebhookIdParams },
    responses: { 200: { description: 'The endpoint.', schema: WebhookEndpoint } },
    dynamo: { data: { GetItem: [webhookPartitions.endpoints] } },
  },
  updateWebhook: {
    method: 'PATCH',
    path: '/v1/webhooks/{id}',
    handler: 'functions/webhooks/update.ts',
    access: 'key',
    scope: 'webhooks:write',
    tag: 'Webhooks',
    summary: 'Change the URL, event types, status (ACTIVE/DISABLED) or description',
    description:
      'Only the fields present change; at least one is required. A new URL is checked as on creation. A DISABLED endpoint receives nothing until set ACTIVE again.',
    request: { params: WebhookIdParams, body: UpdateWebhookBody },
    errors: ['webhook.url.refused'],
    responses: { 200: { description: 'The endpoint.', schema: WebhookEndpoint } },
    // The endpoint, and its subscriptions following its event types and status.
    dynamo: {
      data: {
        GetItem: [webhookPartitions.endpoints],
        UpdateItem: [webhookPartitions.endpoints],
        PutItem: [webhookPartitions.subscribers],
        DeleteItem: [webhookPartitions.subscribers],
      },
    },
  },
  deleteWebhook: {
    method: 'DELETE',
    path: '/v1/webhooks/{id}',
    handler: 'functions/webhooks/delete.ts',
    access: 'key',
    scope: 'webhooks:write',
    tag: 'Webhooks',
    summary: 'Delete an endpoint; pending deliveries to it fail',
    description: 'The endpoint stops receiving at once; its PENDING deliveries fail.',
    request: { params: WebhookIdParams },
    responses: { 200: { description: 'Deleted.', schema: DeletedWebhook } },
    dynamo: {
      data: {
        GetItem: [webhookPartitions.endpoints],
        DeleteItem: [webhookPartitions.endpoints, webhookPartitions.subscribers],
        UpdateItem: [webhookPartitions.endpoints],
      },
    },
  },
  rotateWebhookSecret: {
    method: 'POST',
    path: '/v1/webhooks/{id}/rotate-secret',
    handler: 'functions/webhooks/rotate-secret.ts',
    access: 'key',
    scope: 'webhooks:write',
    tag: 'Webhooks',
    summary: 'Rotate the signing secret; the new one is shown only here',
    description:
      "Mints a new signing secret and returns it once (null in an idempotent replay). The previous secret keeps signing every delivery beside the new one for overlap_seconds (default 24 h, at most 7 days): X-Service-Signature stays keyed with the previous secret until the overlap ends (a receiver that follows only the spec keeps verifying), X-Service-Signature-Next carries the new secret's signature, X-Service-Signature-Previous the previous secret's again, and webhook-signature both. overlap_seconds 0 revokes every older secret at once, even during an open rotation; any other rotation while one is open is refused with 409 webhook.secret.rotation_open.",
    request: { params: WebhookIdParams, body: RotateWebhookSecretBody },
    errors: ['webhook.secret.rotation_open', 'webhook.secret.rotation_conflict'],
    responses: { 200: { description: 'The endpoint with its new signing_secret.', schema: WebhookEndpointWithSecret } },
    secretFields: ['signing_secret'],
    dynamo: { data: { GetItem: [webhookPartitions.endpoints], UpdateItem: [webhookPartitions.endpoints] } },
  },
  recoverWebhook: {
    method: 'POST',
    path: '/v1/webhooks/{id}/recover',
    handler: 'functions/webhooks/recover.ts',
    effectsOutsideCommit: 'It re-enables the endpoint and commits each replay (and queues it) before its answer commits; a rerun would answer other counts.',
    access: 'key',
    scope: 'webhooks:write',
    tag: 'Webhooks',
    summary: 'Re-send every event the endpoint failed to receive since a time (and re-enable it if asked)',
    description:
      'Each event whose deliveries to this endpoint since `since` all FAILED gets one new delivery, attempted now (like a replay); an event already re-sent or delivered is skipped, so calling again sends nothing twice. Every delivery not yet DELIVERED gets its next attempt at once (`brought_forward`): one waiting for a retry now, one whose attempt is in flight as soon as that attempt fails; deliveries are read as they are now, a moment-old one included. At most 500 events per call (`truncated`: call again). With "enable": true a DISABLED endpoint is set ACTIVE first; without it, a DISABLED endpoint is a 409 webhook.endpoint.disabled.',
    request: { params: WebhookIdParams, body: RecoverWebhookBody },
    errors: ['webhook.endpoint.disabled'],
    responses: { 202: { description: 'What is being re-sent.', schema: RecoverWebhookResult } },
    publishesEvents: true,
    timeoutSeconds: 29,
    /*
     * The endpoint (enabled with its subscriptions, if asked), its deliveries since `since` (gsi1, and its rows of
     * them read strongly consistent, then the deliveries themselves); each failed event re-sent once (the failed
     * delivery claimed with the new one), each waiting retry brought forward.
     */
    dynamo: {
      data: {
        GetItem: [webhookPartitions.endpoints, eventPartitions.events, webhookPartitions.delivery, webhookPartitions.attempt],
        BatchGetItem: [webhookPartitions.delivery],
        UpdateItem: [webhookPartitions.endpoints, webhookPartitions.delivery],
        PutItem: [webhookPartitions.subscribers, webhookPartitions.delivery, webhookPartitions.endpointDeliveries],
        Query: [webhookPartitions.endpointDeliveries],
        queryIndexes: ['gsi1'],
      },
    },
    untested: {
      [dynamoLine('data', 'GetItem', webhookPartitions.delivery)]: "a re-send cancelled by a concurrent recover's transaction reads the failed delivery again",
      [dynamoLine('data', 'GetItem', webhookPartitions.attempt)]: "a re-send cancelled by a concurrent recover's transaction reads the failed delivery again",
    },
  },
  ageWebhookFailuresTestHelper: {
    method: 'POST',
    path: '/v1/test-helpers/webhooks/{id}/age-failures',
    handler: 'functions/webhooks/test-age-failures.ts',
    access: 'key',
    scope: 'webhooks:write',
    tag: 'Test helpers',
    summary: "Sandbox: move the start of an endpoint's failure streak back",
    description:
      'Sets failing_since to `hours` ago (and forgets a warning already sent), so the next failed delivery to the endpoint meets the thresholds now: 25 hours brings the warning e-mail, 121 hours the auto-disable and its e-mail. Sandbox keys only.',
    request: { params: WebhookIdParams, body: AgeFailuresBody },
    responses: { 200: { description: 'The endpoint.', schema: WebhookEndpoint } },
    sandboxOnly: true,
    dynamo: { data: { UpdateItem: [webhookPartitions.endpoints] } },
  },
  testWebhook: {
    method: 'POST',
    path: '/v1/webhooks/{id}/test',
    handler: 'functions/webhooks/test.ts',
    access: 'key',
    scope: 'webhooks:write',
    tag: 'Webhooks',
    summary: 'Send an example event of a type (test: true) now; it is listed in the delivery log as a test send',
    description: `The endpoint has 8 seconds to answer. The test send is attempted once, never retried. ${SEND_BUDGET}`,
    request: { params: WebhookIdParams, body: TestWebhookBody },
    errors: ['webhook.send.budget_exceeded'],
    timeoutSeconds: 20,
    responses: { 200: { description: 'What the endpoint answered and how fast.', schema: WebhookTestResult } },
    effectsOutsideCommit: 'The test event and its delivery are recorded, and POSTed to the endpoint, before the answer commits; a rerun would send another.',
    // The budget spent; the example event and its delivery, already claimed; the attempt's outcome, and the endpoint's
    // last answer.
    dynamo: {
      data: {
        GetItem: [webhookPartitions.endpoints],
        PutItem: [eventPartitions.events, webhookPartitions.delivery],
        UpdateItem: [webhookPartitions.delivery, webhookPartitions.endpoints, webhookPartitions.sendBudget],
      },
    },
  },
});
