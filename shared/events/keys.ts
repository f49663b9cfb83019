import type { Env } from '../kernel/tenant';

/** Keys of recorded events in the data table (docs/architecture.md, "Data model and access patterns", row "events"). */
export const eventKeys = {
  /** The events of a partner and environment, in time order. */
  partition: (partnerId: string, env: Env) => `EVT#${partnerId}#${env}`,
  event: (partnerId: string, env: Env, createdAt: string, id: string) => ({ pk: eventKeys.partition(partnerId, env), sk: `${createdAt}#${id}` }),
  /** gsi1 (sparse): events not yet fanned out, oldest first; removed once dispatched. */
  pendingPartition: 'EVENTS#PENDING',
  pending: (createdAt: string, id: string) => ({ gsi1pk: eventKeys.pendingPartition, gsi1sk: `${createdAt}#${id}` }),
  /** An event recorded under a deterministic id (an announcement): its once-marker refuses a second recording. */
  once: (id: string) => ({ pk: `EVONCE#${id}`, sk: 'ONCE' }),
};

/** The events' partitions, as dynamodb:LeadingKeys patterns (the route table's `dynamo`, shared/db/grants.ts). */
export const eventPartitions = {
  events: 'EVT#*',
  once: 'EVONCE#*',
};
