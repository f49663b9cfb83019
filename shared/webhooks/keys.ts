import type { Env } from '../kernel/tenant';

/** Keys of webhook endpoints and deliveries in the data table (README, "Data", rows "webhook endpoints" and "delivery"). */
export const webhookKeys = {
  /** The endpoints of a partner and environment, and their count, share one partition. */
  endpointsPartition: (partnerId: string, env: Env) => `WH#${partnerId}#${env}`,
  endpoint: (partnerId: string, env: Env, id: string) => ({ pk: webhookKeys.endpointsPartition(partnerId, env), sk: `EP#${id}` }),
  endpointPrefix: 'EP#',
  /** How many endpoints exist: the limit holds under concurrent creations. */
  endpointCount: (partnerId: string, env: Env) => ({ pk: webhookKeys.endpointsPartition(partnerId, env), sk: 'COUNT' }),
  delivery: (id: string) => ({ pk: `DLV#${id}`, sk: 'DLV' }),
  /** gsi1: a partner's deliveries in one environment, newest first by created_at. */
  deliveriesPartition: (partnerId: string, env: Env) => `DLVS#${partnerId}#${env}`,
  deliveriesIndex: (partnerId: string, env: Env, createdAt: string, id: string) => ({
    gsi1pk: webhookKeys.deliveriesPartition(partnerId, env),
    gsi1sk: `${createdAt}#${id}`,
  }),
  /** The table key of the delivery whose gsi1 sort key is `gsi1sk` (to resume a page). */
  deliveryFromIndexSort: (gsi1sk: string) => webhookKeys.delivery(gsi1sk.split('#')[1]!),
  /** gsi2 (sparse): deliveries still waiting, by when their next attempt is due, for the sweeper. */
  pendingPartition: 'DLV#PENDING',
  pending: (nextAttemptAt: string, id: string) => ({ gsi2pk: webhookKeys.pendingPartition, gsi2sk: `${nextAttemptAt}#${id}` }),
};
