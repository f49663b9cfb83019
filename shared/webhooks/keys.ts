import type { Env } from '../kernel/tenant';

/** Keys of webhook endpoints and deliveries in the data table (docs/architecture.md, "Data model and access patterns", rows "webhook endpoints" and "delivery"). */
export const webhookKeys = {
  /** The endpoints of a partner and environment, and their count, share one partition. */
  endpointsPartition: (partnerId: string, env: Env) => `WH#${partnerId}#${env}`,
  endpoint: (partnerId: string, env: Env, id: string) => ({ pk: webhookKeys.endpointsPartition(partnerId, env), sk: `EP#${id}` }),
  endpointPrefix: 'EP#',
  /** How many endpoints exist: the limit holds under concurrent creations. */
  endpointCount: (partnerId: string, env: Env) => ({ pk: webhookKeys.endpointsPartition(partnerId, env), sk: 'COUNT' }),
  /**
   * How many of an endpoint's deliveries are PENDING, kept in shards (`pending`): each transaction that creates
   * deliveries or settles one adds its +n or -1 to one shard of the endpoint, picked at random (another on a retry),
   * so concurrent changes to one endpoint's deliveries seldom meet on one item; the figure is the shards' sum (a
   * shard may be negative, the sum never is). In the endpoints' partition, which the routes that change a delivery
   * already write. `pendingCount` is the endpoint's marker, put with it (`exact`): an endpoint older than the counts
   * has none, and its figure comes from the pending index.
   */
  pendingCount: (partnerId: string, env: Env, endpointId: string) => ({ pk: webhookKeys.endpointsPartition(partnerId, env), sk: `PENDING#${endpointId}` }),
  pendingShard: (partnerId: string, env: Env, endpointId: string, shard: number) => ({
    pk: webhookKeys.endpointsPartition(partnerId, env),
    sk: `PENDING#${endpointId}#${shard}`,
  }),
  pendingCountPrefix: 'PENDING#',
  /**
   * The subscription index: one item per ACTIVE endpoint and event type, so the
   * endpoints subscribed to a type in an environment, across partners, are one
   * Query (adventure.unavailable goes to every subscribed partner).
   */
  subscribersPartition: (env: Env, eventType: string) => `WHSUB#${env}#${eventType}`,
  subscription: (env: Env, eventType: string, partnerId: string, endpointId: string) => ({
    pk: webhookKeys.subscribersPartition(env, eventType),
    sk: `${partnerId}#${endpointId}`,
  }),
  /** The sort-key prefix of one partner's subscriptions in a subscribers partition. */
  subscriptionPrefix: (partnerId: string) => `${partnerId}#`,
  delivery: (id: string) => ({ pk: `DLV#${id}`, sk: 'DLV' }),
  /** An attempt id (the X-Service-Delivery-Id a receiver saw) -> its delivery; written when the attempt is claimed. */
  attempt: (attemptId: string) => ({ pk: `DLVATT#${attemptId}`, sk: 'DLVATT' }),
  /** gsi1: a partner's deliveries in one environment, newest first by created_at. */
  deliveriesPartition: (partnerId: string, env: Env) => `DLVS#${partnerId}#${env}`,
  deliveriesIndex: (partnerId: string, env: Env, createdAt: string, id: string) => ({
    gsi1pk: webhookKeys.deliveriesPartition(partnerId, env),
    gsi1sk: `${createdAt}#${id}`,
  }),
  /** The table key of the delivery whose gsi1 sort key is `gsi1sk` (to resume a page). */
  deliveryFromIndexSort: (gsi1sk: string) => webhookKeys.delivery(gsi1sk.split('#')[1]!),
  /**
   * The deliveries of one endpoint, newest first: a row per delivery (its id), put in the transaction that
   * creates the delivery and read strongly consistent by recover, which must find a delivery made a moment
   * ago (the partner's delivery index may not show it yet). Kept a week (TTL), far longer than a delivery waits.
   */
  endpointDeliveriesPartition: (partnerId: string, env: Env, endpointId: string) => `DLVEP#${partnerId}#${env}#${endpointId}`,
  endpointDeliveryRow: (partnerId: string, env: Env, endpointId: string, createdAt: string, id: string) => ({
    pk: webhookKeys.endpointDeliveriesPartition(partnerId, env, endpointId),
    sk: `${createdAt}#${id}`,
  }),
  /**
   * The manual sends (replays, test sends) of a partner and environment in one one-minute window: to one endpoint,
   * or (no endpoint) to all of them (TTL).
   */
  sendBudget: (partnerId: string, env: Env, endpointId: string | null, windowStart: number) => ({
    pk: `WHSEND#${partnerId}#${env}${endpointId ? `#${endpointId}` : ''}`,
    sk: String(windowStart),
  }),
  /** gsi2 (sparse): deliveries still waiting, by when their next attempt is due, for the sweeper. */
  pendingPartition: 'DLV#PENDING',
  pending: (nextAttemptAt: string, id: string) => ({ gsi2pk: webhookKeys.pendingPartition, gsi2sk: `${nextAttemptAt}#${id}` }),
};

/**
 * The webhooks' partitions, as dynamodb:LeadingKeys patterns (the route table's `dynamo`, shared/db/grants.ts): the
 * endpoints (and their count), subscriptions, deliveries, attempt lookups, an endpoint's delivery rows, the manual
 * sends' budget windows.
 */
export const webhookPartitions = {
  endpoints: 'WH#*',
  subscribers: 'WHSUB#*',
  delivery: 'DLV#*',
  attempt: 'DLVATT#*',
  endpointDeliveries: 'DLVEP#*',
  sendBudget: 'WHSEND#*',
};
