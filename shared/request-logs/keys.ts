import type { Env } from '../kernel/tenant';

/**
 * Keys of the request log in the data table (docs/architecture.md, "Data model and access patterns", row
 * "request log"). An entry is listed from one partition per partner, environment and UTC day, newest first
 * by sort key, so a busy partner's log spreads over a partition a day instead of one hot partition forever,
 * and a time range is a sort-key condition. A small second row per entry finds it by request id with one
 * GetItem: a GSI would replicate every entry (its bodies included, or a second read with KEYS_ONLY), lag its
 * writes, and could not be scoped to the partner by dynamodb:LeadingKeys, which names the table's partition key.
 */
export const requestLogKeys = {
  /** The entries of one partner, environment and UTC day (YYYY-MM-DD). */
  day: (partnerId: string, env: Env, day: string) => `REQLOG#${partnerId}#${env}#${day}`,
  /** Sort key `occurred_at#request_id`: newest first, and a time range as bounds. */
  entry: (partnerId: string, env: Env, occurredAt: string, requestId: string) => ({
    pk: requestLogKeys.day(partnerId, env, occurredAt.slice(0, 10)),
    sk: requestLogKeys.sort(occurredAt, requestId),
  }),
  sort: (occurredAt: string, requestId: string) => `${occurredAt}#${requestId}`,
  /** The pointer from a request id to its entry's key. */
  byId: (partnerId: string, env: Env, requestId: string) => ({ pk: `REQLOGID#${partnerId}#${env}#${requestId}`, sk: 'ID' }),
};

/** The request log's partitions, as dynamodb:LeadingKeys patterns (the route table's `dynamo`, shared/db/grants.ts): the day partitions, the pointers by request id. */
export const requestLogPartitions = {
  day: 'REQLOG#*',
  byId: 'REQLOGID#*',
};

/** What the request log's consumer may write in the data table (dynamodb:LeadingKeys). */
export const REQUEST_LOG_LEADING_KEYS = [requestLogPartitions.day, requestLogPartitions.byId];
