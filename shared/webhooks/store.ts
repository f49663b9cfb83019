import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dataTable, type Seal, type Table, type TransactItem, transact, unsealed } from '../db/client';
import { isConditionFailed } from '../db/errors';
import { type Item, indexBefore, inList, newestFirst } from '../db/query';
import { backoff } from '../db/retry';
import type { Env } from '../kernel/tenant';
import { webhookKeys } from './keys';
import type { DeliveryRecord, DeliveryStatus, EndpointRecord } from './model';

export const MAX_ENDPOINTS = 16;

export interface EndpointPatch {
  url?: string;
  event_types?: string[];
  status?: 'ACTIVE' | 'DISABLED';
  description?: string | null;
}

/** What an attempt changes on its delivery once it is over. */
export interface AttemptOutcome {
  status: DeliveryStatus;
  http_status: number | null;
  error: string | null;
  at: string;
  next_attempt_at: string | null;
  delivered: boolean;
}

/** Webhook endpoints (with their per-environment count) and deliveries. */
export function makeWebhookStore(table: Table = dataTable) {
  const TableName = () => table.name();
  const deliveryItem = (d: DeliveryRecord) => ({
    ...webhookKeys.delivery(d.id),
    type: 'delivery',
    ...d,
    ...webhookKeys.deliveriesIndex(d.partner_id, d.env, d.created_at, d.id),
    ...webhookKeys.pending(d.next_attempt_at!, d.id),
  });

  const store = {
    async listEndpoints(partnerId: string, env: Env): Promise<EndpointRecord[]> {
      const r = await table.client.send(
        new QueryCommand({
          TableName: TableName(),
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :e)',
          ExpressionAttributeValues: { ':p': webhookKeys.endpointsPartition(partnerId, env), ':e': webhookKeys.endpointPrefix },
          ConsistentRead: true,
        }),
      );
      return (r.Items ?? []) as EndpointRecord[];
    },

    async getEndpoint(partnerId: string, env: Env, id: string): Promise<EndpointRecord | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: webhookKeys.endpoint(partnerId, env, id), ConsistentRead: true }));
      return r.Item as EndpointRecord | undefined;
    },

    /**
     * The endpoint and its count in one transaction, so the limit holds under
     * concurrent creations. 'limit' when the environment is full; a transaction
     * that conflicts with a concurrent creation is retried, never reported as
     * the limit.
     */
    async createEndpoint(e: EndpointRecord, seal: Seal<EndpointRecord> = unsealed): Promise<'created' | 'limit'> {
      for (let attempt = 0; ; attempt++) {
        const cancelled = await transact(
          table.client,
          {
            count: {
              Update: {
                TableName: TableName(),
                Key: webhookKeys.endpointCount(e.partner_id, e.env),
                UpdateExpression: 'ADD endpoints :one',
                ConditionExpression: 'attribute_not_exists(endpoints) OR endpoints < :max',
                ExpressionAttributeValues: { ':one': 1, ':max': MAX_ENDPOINTS },
              },
            },
            endpoint: {
              Put: {
                TableName: TableName(),
                Item: { ...webhookKeys.endpoint(e.partner_id, e.env, e.id), type: 'webhook_endpoint', ...e },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          },
          [],
          seal.items(e),
        );
        if (!cancelled) return 'created';
        if (cancelled.failed('count')) return 'limit';
        if (!cancelled.conflict || attempt >= 10) throw new Error(`endpoint creation was cancelled (${cancelled.codes.join(', ')})`);
        await backoff(attempt);
      }
    },

    /**
     * The endpoint after the change; undefined when it does not exist. The
     * change is computed from the endpoint as read and written only if nobody
     * changed it meanwhile (its updated_at), so the sealed answer is exact.
     */
    async updateEndpoint(
      partnerId: string,
      env: Env,
      id: string,
      patch: EndpointPatch,
      now: Date,
      seal: Seal<EndpointRecord> = unsealed,
    ): Promise<EndpointRecord | undefined> {
      for (let attempt = 0; ; attempt++) {
        const current = await store.getEndpoint(partnerId, env, id);
        if (!current) return undefined;
        const next: EndpointRecord = { ...current, ...patch, updated_at: now.toISOString() };
        const sets: string[] = [];
        const names: Record<string, string> = {};
        const values: Record<string, unknown> = { ':prev': current.updated_at };
        for (const field of ['url', 'event_types', 'status', 'description', 'updated_at'] as const) {
          if (field !== 'updated_at' && patch[field] === undefined) continue;
          sets.push(`#${field} = :${field}`);
          names[`#${field}`] = field;
          values[`:${field}`] = next[field];
        }
        const cancelled = await transact(
          table.client,
          {
            endpoint: {
              Update: {
                TableName: TableName(),
                Key: webhookKeys.endpoint(partnerId, env, id),
                UpdateExpression: `SET ${sets.join(', ')}`,
                ConditionExpression: 'updated_at = :prev',
                ExpressionAttributeNames: names,
                ExpressionAttributeValues: values,
              },
            },
          },
          [],
          seal.items(next),
        );
        if (!cancelled) return next;
        if (attempt >= 10) throw new Error(`endpoint update was cancelled (${cancelled.codes.join(', ')})`);
        await backoff(attempt);
      }
    },

    /** Deletes the endpoint and gives its place back; false when it does not exist. */
    async deleteEndpoint(partnerId: string, env: Env, id: string, seal: Seal<{ id: string; deleted: true }> = unsealed): Promise<boolean> {
      const cancelled = await transact(
        table.client,
        {
          endpoint: { Delete: { TableName: TableName(), Key: webhookKeys.endpoint(partnerId, env, id), ConditionExpression: 'attribute_exists(pk)' } },
          count: {
            Update: {
              TableName: TableName(),
              Key: webhookKeys.endpointCount(partnerId, env),
              UpdateExpression: 'ADD endpoints :minus',
              ExpressionAttributeValues: { ':minus': -1 },
            },
          },
        },
        [],
        seal.items({ id, deleted: true }),
      );
      if (cancelled?.failed('endpoint')) return false;
      if (cancelled) throw new Error(`endpoint deletion was cancelled (${cancelled.codes.join(', ')})`);
      return true;
    },

    /** The last HTTP status the endpoint answered, if it still exists. */
    async recordEndpointStatus(partnerId: string, env: Env, id: string, httpStatus: number, at: string): Promise<void> {
      try {
        await table.client.send(
          new UpdateCommand({
            TableName: TableName(),
            Key: webhookKeys.endpoint(partnerId, env, id),
            UpdateExpression: 'SET last_http_status = :h, last_delivery_at = :now',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':h': httpStatus, ':now': at },
          }),
        );
      } catch (e) {
        if (!isConditionFailed(e)) throw e;
      }
    },

    async getDelivery(id: string): Promise<DeliveryRecord | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: webhookKeys.delivery(id), ConsistentRead: true }));
      return r.Item as DeliveryRecord | undefined;
    },

    /** A new delivery, PENDING and due at once. */
    putDelivery(d: DeliveryRecord): TransactItem {
      return { Put: { TableName: TableName(), Item: deliveryItem(d), ConditionExpression: 'attribute_not_exists(pk)' } };
    },

    /** Claims attempt `attempt` (same attempt number, no live claim): false when another worker holds it or it is no longer due. */
    async claimAttempt(id: string, attempt: number, now: Date, claimMs: number): Promise<boolean> {
      try {
        await table.client.send(
          new UpdateCommand({
            TableName: TableName(),
            Key: webhookKeys.delivery(id),
            UpdateExpression: 'SET claimed_attempt = :a, claim_until = :until',
            ConditionExpression: '#s = :pending AND attempts = :prev AND (attribute_not_exists(claim_until) OR claim_until < :now OR claimed_attempt <> :a)',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':a': attempt, ':until': now.getTime() + claimMs, ':pending': 'PENDING', ':prev': attempt - 1, ':now': now.getTime() },
          }),
        );
        return true;
      } catch (e) {
        if (isConditionFailed(e)) return false;
        throw e;
      }
    },

    /** Records the outcome of a claimed attempt; a delivery still PENDING moves to its next due time in the sweeper's index. */
    async recordAttempt(d: DeliveryRecord, attempt: number, o: AttemptOutcome): Promise<void> {
      const pending = o.status === 'PENDING';
      await table.client.send(
        new UpdateCommand({
          TableName: TableName(),
          Key: webhookKeys.delivery(d.id),
          UpdateExpression:
            'SET #s = :s, attempts = :a, last_http_status = :h, last_error = :e, last_attempt_at = :now, next_attempt_at = :next, updated_at = :now, delivered_at = :dat, dead_lettered_at = :dlat' +
            (pending ? ', gsi2sk = :g2' : ' REMOVE gsi2pk, gsi2sk'),
          ConditionExpression: 'claimed_attempt = :a AND attempts = :prev',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: {
            ':s': o.status,
            ':a': attempt,
            ':prev': attempt - 1,
            ':h': o.http_status,
            ':e': o.error,
            ':now': o.at,
            ':next': o.next_attempt_at,
            ':dat': o.delivered ? o.at : null,
            ':dlat': o.status === 'FAILED' ? o.at : null,
            ...(pending ? { ':g2': webhookKeys.pending(o.next_attempt_at!, d.id).gsi2sk } : {}),
          },
        }),
      );
    },

    /** A partner's deliveries in one environment, newest first by created_at, optionally by status. */
    async listDeliveries(partnerId: string, env: Env, q: { limit: number; status?: DeliveryStatus[] }, after?: string) {
      const values: Record<string, unknown> = {};
      const filter = q.status?.length ? { expression: inList('#s', q.status, values, 's'), names: { '#s': 'status' }, values } : undefined;
      const { items, next } = await newestFirst(
        table,
        { index: 'gsi1', partition: webhookKeys.deliveriesPartition(partnerId, env), itemKey: webhookKeys.deliveryFromIndexSort, filter },
        q.limit,
        after,
      );
      return { items: items as unknown as DeliveryRecord[], next };
    },

    /** Deliveries whose next attempt was due before `cutoff`, a page at a time. */
    dueBefore(cutoff: string): AsyncGenerator<Item[]> {
      return indexBefore(table, 'gsi2', webhookKeys.pendingPartition, cutoff);
    },

    /** Drops the claim on a PENDING delivery's attempt (after a restart, when no worker holds it any more). */
    async releaseClaim(id: string): Promise<void> {
      try {
        await table.client.send(
          new UpdateCommand({
            TableName: TableName(),
            Key: webhookKeys.delivery(id),
            UpdateExpression: 'REMOVE claimed_attempt, claim_until',
            ConditionExpression: '#s = :pending',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':pending': 'PENDING' },
          }),
        );
      } catch (e) {
        if (!isConditionFailed(e)) throw e;
      }
    },
  };
  return store;
}

export const webhookStore = makeWebhookStore();
