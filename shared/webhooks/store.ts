import { randomInt } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dataTable, type Guard, type Seal, type Table, type TransactItem, transact, unsealed } from '../db/client';
import { isConditionFailed } from '../db/errors';
import { batchGet, type Item, indexBefore, inList, newestFirst, queryAll, queryPage } from '../db/query';
import { backoff } from '../db/retry';
import type { EventType } from '../events/types';
import { notAfterNow } from '../kernel/clock';
import type { Env } from '../kernel/tenant';
import { webhookKeys } from './keys';
import type { AttemptRecord, DeliveryRecord, DeliveryStatus, EndpointRecord, ReceiverAnswer } from './model';

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
  response_time_ms: number;
  at: string;
  next_attempt_at: string | null;
  delivered: boolean;
  /** When the attempt was sent, if not its claim's time: a sandbox attempt's is its clock's. */
  attempted_at?: string;
  /** When the sweeper should find the next attempt overdue, in real time, if not next_attempt_at (a sandbox clock's). */
  sweep_at?: string;
  /** What the receiver answered (headers, the first KB of the body), kept on the attempt's log entry. */
  response?: ReceiverAnswer;
}

/** The claim of one attempt: its id (sent as X-Service-Delivery-Id) and its place in the delivery's attempt log. */
export interface AttemptClaim {
  id: string;
  index: number;
}

/** The filters of the delivery log. */
export interface DeliveryFilter {
  limit: number;
  status?: DeliveryStatus[];
  endpoint_id?: string;
  event_id?: string;
  event_type?: EventType[];
  /** Only deliveries of events about this booking (their data's booking_number; deliveries recorded before they carried their event are not found). */
  booking_number?: string;
  /** Only deliveries created at or after this instant (a sort-key bound, not a filter). */
  created_from?: string;
}

/** The ACTIVE endpoint's subscription items: one per event type. */
const subscribedTypes = (e: Pick<EndpointRecord, 'status' | 'event_types'>) => (e.status === 'ACTIVE' ? e.event_types : []);

/** The log entry of an attempt just claimed: its outcome is filled in once the receiver answered. */
const openEntry = (id: string, number: number, now: Date): AttemptRecord => ({
  id,
  number,
  attempted_at: now.toISOString(),
  http_status: null,
  response_time_ms: null,
  error: null,
  result: null,
});

/** Webhook endpoints (with their per-environment count) and deliveries. */
/** The most pending deliveries a list reads to count them (a few pages of the pending index). */
const PENDING_READ_MAX = 5_000;
/**
 * The shards of an endpoint's count of PENDING deliveries (webhookKeys.pendingShard): a transaction changes one, at
 * random, so of k changes to one endpoint's deliveries in flight at once about k/16 meet on an item, not all of them.
 * A list reads all (16 items per endpoint, at most 272 in one strongly consistent Query of the endpoints' partition).
 */
export const PENDING_SHARDS = 16;
/** Retries of a transaction that met another on an endpoint's count of PENDING deliveries, and their widest wait. */
export const COUNT_RETRIES = 30;
export const COUNT_BACKOFF_CAP_MS = 1_000;
/** How long an endpoint's delivery row is kept: a week, far beyond the 31 h a delivery waits for its retries. */
const DELIVERY_ROW_TTL_SECONDS = 7 * 86_400;

export function makeWebhookStore(table: Table = dataTable) {
  const TableName = () => table.name();
  const deliveryItem = (d: DeliveryRecord) => ({
    ...webhookKeys.delivery(d.id),
    type: 'delivery',
    ...d,
    ...webhookKeys.deliveriesIndex(d.partner_id, d.env, d.created_at, d.id),
    // Every delivery put is due now: on the sweeper's real-time index, not at a sandbox clock's time ahead of it.
    ...webhookKeys.pending(notAfterNow(d.next_attempt_at!), d.id),
  });
  const subscriptionPut = (e: Pick<EndpointRecord, 'partner_id' | 'env' | 'id'>, type: string): TransactItem => ({
    Put: {
      TableName: TableName(),
      Item: {
        ...webhookKeys.subscription(e.env, type, e.partner_id, e.id),
        type: 'webhook_subscription',
        partner_id: e.partner_id,
        endpoint_id: e.id,
        event_type: type,
      },
    },
  });
  const subscriptionDelete = (e: Pick<EndpointRecord, 'partner_id' | 'env' | 'id'>, type: string): TransactItem => ({
    Delete: { TableName: TableName(), Key: webhookKeys.subscription(e.env, type, e.partner_id, e.id) },
  });
  const attemptLookup = (d: Pick<DeliveryRecord, 'id' | 'partner_id' | 'env'>, attemptId: string, number: number): TransactItem => ({
    Put: {
      TableName: TableName(),
      Item: {
        ...webhookKeys.attempt(attemptId),
        type: 'delivery_attempt',
        attempt_id: attemptId,
        delivery_id: d.id,
        partner_id: d.partner_id,
        env: d.env,
        number,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  });

  /**
   * One shard of the endpoint's count of PENDING deliveries, picked at random, changed by `n`: a transaction rebuilt
   * after a conflict picks again. Only the sum of the shards means anything.
   */
  const pendingDelta = (d: Pick<DeliveryRecord, 'partner_id' | 'env' | 'endpoint_id'>, n: number): TransactItem => ({
    Update: {
      TableName: TableName(),
      Key: webhookKeys.pendingShard(d.partner_id, d.env, d.endpoint_id, randomInt(PENDING_SHARDS)),
      UpdateExpression: 'ADD pending :n',
      ExpressionAttributeValues: { ':n': n },
    },
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
          [
            ...subscribedTypes(e).map((type) => subscriptionPut(e, type)),
            // Counted from its first delivery on: exact.
            {
              Put: {
                TableName: TableName(),
                Item: { ...webhookKeys.pendingCount(e.partner_id, e.env, e.id), type: 'webhook_pending_count', endpoint_id: e.id, pending: 0, exact: true },
              },
            },
          ],
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
        // Setting the status starts afresh: ACTIVE forgets the failure streak, DISABLED says it was asked for.
        const health =
          patch.status === 'ACTIVE'
            ? { failing_since: null, failure_warned_at: null, disabled_reason: null, disabled_at: null }
            : patch.status === 'DISABLED' && current.status !== 'DISABLED'
              ? { disabled_reason: 'manual' as const, disabled_at: now.toISOString() }
              : {};
        const next: EndpointRecord = { ...current, ...patch, ...health, updated_at: now.toISOString() };
        const sets: string[] = [];
        const names: Record<string, string> = {};
        const values: Record<string, unknown> = { ':prev': current.updated_at };
        const changed = [
          ...(['url', 'event_types', 'status', 'description'] as const).filter((f) => patch[f] !== undefined),
          ...(Object.keys(health) as (keyof typeof health)[]),
          'updated_at' as const,
        ];
        for (const field of changed) {
          sets.push(`#${field} = :${field}`);
          names[`#${field}`] = field;
          values[`:${field}`] = next[field];
        }
        // The subscription index follows the change, in the same transaction.
        const before = new Set(subscribedTypes(current));
        const after = new Set(subscribedTypes(next));
        const index = [
          ...[...before].filter((type) => !after.has(type)).map((type) => subscriptionDelete(current, type)),
          ...[...after].filter((type) => !before.has(type)).map((type) => subscriptionPut(current, type)),
        ];
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
          index,
          seal.items(next),
        );
        if (!cancelled) return next;
        if (attempt >= 10) throw new Error(`endpoint update was cancelled (${cancelled.codes.join(', ')})`);
        await backoff(attempt);
      }
    },

    /** Deletes the endpoint, its subscriptions, and gives its place back; false when it does not exist. */
    async deleteEndpoint(partnerId: string, env: Env, id: string, seal: Seal<{ id: string; deleted: true }> = unsealed): Promise<boolean> {
      for (let attempt = 0; ; attempt++) {
        const current = await store.getEndpoint(partnerId, env, id);
        if (!current) return false;
        const cancelled = await transact(
          table.client,
          {
            // Unchanged since read, so the subscriptions removed are exactly the ones it has.
            endpoint: {
              Delete: {
                TableName: TableName(),
                Key: webhookKeys.endpoint(partnerId, env, id),
                ConditionExpression: 'updated_at = :prev',
                ExpressionAttributeValues: { ':prev': current.updated_at },
              },
            },
            count: {
              Update: {
                TableName: TableName(),
                Key: webhookKeys.endpointCount(partnerId, env),
                UpdateExpression: 'ADD endpoints :minus',
                ExpressionAttributeValues: { ':minus': -1 },
              },
            },
          },
          [
            ...subscribedTypes(current).map((type) => subscriptionDelete(current, type)),
            // The count (its marker and shards) goes a week later, not now: an attempt in flight still settles on it (an
            // ADD would make a shard anew, without its expiry), and every delivery settles within 31 h.
            ...[
              webhookKeys.pendingCount(partnerId, env, id),
              ...Array.from({ length: PENDING_SHARDS }, (_, s) => webhookKeys.pendingShard(partnerId, env, id, s)),
            ].map(
              (Key): TransactItem => ({
                Update: {
                  TableName: TableName(),
                  Key,
                  UpdateExpression: 'SET #ttl = :ttl',
                  ExpressionAttributeNames: { '#ttl': 'ttl' },
                  ExpressionAttributeValues: { ':ttl': Math.floor(Date.now() / 1000) + DELIVERY_ROW_TTL_SECONDS },
                },
              }),
            ),
          ],
          seal.items({ id, deleted: true }),
        );
        if (!cancelled) return true;
        // It may meet attempts settling on its count's shards: retried as they are.
        if (attempt >= COUNT_RETRIES) throw new Error(`endpoint deletion was cancelled (${cancelled.codes.join(', ')})`);
        await backoff(attempt, 10, COUNT_BACKOFF_CAP_MS);
      }
    },

    /**
     * Writes the subscription items of the endpoint as read (an endpoint
     * created before the index existed), if it is still unchanged: false when
     * it changed meanwhile (read it again).
     */
    async indexSubscriptions(e: EndpointRecord): Promise<boolean> {
      const cancelled = await transact(
        table.client,
        {
          endpoint: {
            ConditionCheck: {
              TableName: TableName(),
              Key: webhookKeys.endpoint(e.partner_id, e.env, e.id),
              ConditionExpression: 'updated_at = :u',
              ExpressionAttributeValues: { ':u': e.updated_at },
            },
          },
        },
        subscribedTypes(e).map((type) => subscriptionPut(e, type)),
      );
      if (!cancelled) return true;
      if (cancelled.failed('endpoint') || cancelled.conflict) return false;
      throw new Error(`subscription indexing was cancelled (${cancelled.codes.join(', ')})`);
    },

    /**
     * The partners with an ACTIVE endpoint subscribed to `eventType` in `env`
     * (one Query of the subscription index), optionally only `partnerId`.
     */
    async subscribers(env: Env, eventType: string, partnerId?: string): Promise<string[]> {
      const items = await queryAll(table, {
        KeyConditionExpression: partnerId ? 'pk = :p AND begins_with(sk, :s)' : 'pk = :p',
        ExpressionAttributeValues: {
          ':p': webhookKeys.subscribersPartition(env, eventType),
          ...(partnerId ? { ':s': webhookKeys.subscriptionPrefix(partnerId) } : {}),
        },
        ConsistentRead: true,
      });
      return [...new Set(items.map((i) => i.partner_id as string))].sort();
    },

    /**
     * The last HTTP status the endpoint answered and the last attempt's error, if it still exists and has
     * not recorded a later answer meanwhile (concurrent attempts finish in any order).
     */
    async recordEndpointStatus(
      partnerId: string,
      env: Env,
      id: string,
      answer: { http_status: number | null; error: string | null; at: string; delivered?: boolean },
    ): Promise<EndpointRecord | undefined> {
      const sets = ['last_outcome_at = :now', 'last_error = :err'];
      const values: Record<string, unknown> = { ':now': answer.at, ':null': 'NULL', ':err': answer.error };
      if (answer.http_status !== null) {
        sets.push('last_http_status = :h', 'last_delivery_at = :now');
        values[':h'] = answer.http_status;
      }
      // The failure streak auto-disable measures (test sends leave it alone: `delivered` undefined).
      let update = `SET ${sets.join(', ')}`;
      if (answer.delivered === false) update += ', failing_since = if_not_exists(failing_since, :now)';
      if (answer.delivered === true) update += ' REMOVE failing_since, failure_warned_at';
      try {
        const r = await table.client.send(
          new UpdateCommand({
            TableName: TableName(),
            Key: webhookKeys.endpoint(partnerId, env, id),
            UpdateExpression: update,
            ConditionExpression:
              'attribute_exists(pk) AND (attribute_not_exists(last_delivery_at) OR attribute_type(last_delivery_at, :null) OR last_delivery_at <= :now) AND (attribute_not_exists(last_outcome_at) OR last_outcome_at <= :now)',
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return r.Attributes as EndpointRecord;
      } catch (e) {
        if (!isConditionFailed(e)) throw e;
        return undefined;
      }
    },

    async getDelivery(id: string): Promise<DeliveryRecord | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: webhookKeys.delivery(id), ConsistentRead: true }));
      return r.Item as DeliveryRecord | undefined;
    },

    /** The delivery with this id, or the one an attempt with this id (an X-Service-Delivery-Id) belongs to. */
    async findDelivery(id: string): Promise<DeliveryRecord | undefined> {
      const [byId, lookup] = await Promise.all([
        store.getDelivery(id),
        table.client.send(new GetCommand({ TableName: TableName(), Key: webhookKeys.attempt(id), ConsistentRead: true })),
      ]);
      if (byId) return byId;
      const deliveryId = lookup.Item?.delivery_id as string | undefined;
      return deliveryId ? store.getDelivery(deliveryId) : undefined;
    },

    /**
     * Marks a FAILED delivery as re-sent by a recover, once: whichever recover writes it first re-sends the
     * event; a concurrent one (or one reading a lagging index) fails this condition and sends nothing.
     */
    claimRecovery(failedId: string, by: string): TransactItem {
      return {
        Update: {
          TableName: TableName(),
          Key: webhookKeys.delivery(failedId),
          UpdateExpression: 'SET recovered_by = :by',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(recovered_by) AND #status = :failed',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':by': by, ':failed': 'FAILED' },
        },
      };
    },

    /** A new delivery, PENDING and due at once. */
    putDelivery(d: DeliveryRecord): TransactItem {
      return { Put: { TableName: TableName(), Item: deliveryItem(d), ConditionExpression: 'attribute_not_exists(pk)' } };
    },

    /** The endpoint's row of a new delivery (webhookKeys.endpointDeliveryRow), put in the transaction that puts the delivery. */
    deliveryRow(d: Pick<DeliveryRecord, 'id' | 'partner_id' | 'env' | 'endpoint_id' | 'created_at'>): TransactItem {
      return {
        Put: {
          TableName: TableName(),
          Item: {
            ...webhookKeys.endpointDeliveryRow(d.partner_id, d.env, d.endpoint_id, d.created_at, d.id),
            type: 'endpoint_delivery',
            delivery_id: d.id,
            ttl: Math.floor(Date.now() / 1000) + DELIVERY_ROW_TTL_SECONDS,
          },
        },
      };
    },

    /**
     * The ids of an endpoint's deliveries created at or after `since`, newest first, from its rows (strongly
     * consistent: a delivery committed a moment ago is there); `complete` is false when more than `max` were left.
     */
    async endpointDeliveryIds(partnerId: string, env: Env, endpointId: string, since: string, max: number): Promise<{ ids: string[]; complete: boolean }> {
      const { items, hasMore } = await queryPage(
        table,
        {
          KeyConditionExpression: 'pk = :p AND sk >= :since',
          ExpressionAttributeValues: { ':p': webhookKeys.endpointDeliveriesPartition(partnerId, env, endpointId), ':since': since },
          ProjectionExpression: 'delivery_id',
          ScanIndexForward: false,
          ConsistentRead: true,
        },
        max,
      );
      return { ids: items.map((i) => i.delivery_id as string), complete: !hasMore };
    },

    /** Deliveries by id, each read strongly consistent (missing ones left out). */
    async getDeliveries(ids: string[]): Promise<DeliveryRecord[]> {
      const out: DeliveryRecord[] = [];
      for (let i = 0; i < ids.length; i += 100)
        out.push(...((await batchGet(table, ids.slice(i, i + 100).map(webhookKeys.delivery))) as unknown as DeliveryRecord[]));
      return out;
    },

    /**
     * Asks, for the attempt in flight (the claim as read), that its next attempt come at once if it fails: sets
     * `redrive_claim` to the claim's id, if the attempt is still in flight under that claim and nobody asked
     * already. The attempt's outcome is recorded on the same condition (recordAttempt), so either this comes first
     * and the outcome sees it, or the outcome does and this fails (then read the delivery again). False when refused.
     */
    async requestRetryAfterAttempt(d: DeliveryRecord): Promise<boolean> {
      try {
        await table.client.send(
          new UpdateCommand({
            TableName: TableName(),
            Key: webhookKeys.delivery(d.id),
            UpdateExpression: 'SET redrive_claim = :cid',
            ConditionExpression:
              '#s = :pending AND attempts = :prev AND claimed_attempt = :a AND claim_id = :cid AND (attribute_not_exists(redrive_claim) OR redrive_claim <> :cid)',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':pending': 'PENDING', ':prev': d.attempts, ':a': d.attempts + 1, ':cid': d.claim_id },
          }),
        );
        return true;
      } catch (e) {
        if (isConditionFailed(e)) return false;
        throw e;
      }
    },

    /**
     * Claims the first attempt of a delivery never claimed before, in one
     * conditional write and without reading it first: the attempt's id is the
     * delivery's own id, so it resolves with no lookup item. The delivery as
     * claimed, or undefined when it is not in that state (another worker holds
     * it, it moved on, or an earlier claim died): the caller then reads it and
     * claims the general way.
     */
    async claimFirst(deliveryId: string, now: Date, claimMs: number): Promise<DeliveryRecord | undefined> {
      const entry = openEntry(deliveryId, 1, now);
      try {
        const r = await table.client.send(
          new UpdateCommand({
            TableName: TableName(),
            Key: webhookKeys.delivery(deliveryId),
            UpdateExpression: 'SET claimed_attempt = :a, claim_until = :until, claimed_at = :now, claim_id = :id, last_attempt_id = :id, attempt_log = :log',
            ConditionExpression:
              '#s = :pending AND attempts = :zero AND (attribute_not_exists(claim_until) OR claim_until < :now OR claimed_attempt <> :a) AND (attribute_not_exists(attempt_log) OR size(attempt_log) = :zero)',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: {
              ':a': 1,
              ':until': now.getTime() + claimMs,
              ':pending': 'PENDING',
              ':zero': 0,
              ':now': now.getTime(),
              ':id': deliveryId,
              ':log': [entry],
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return r.Attributes as DeliveryRecord;
      } catch (e) {
        if (isConditionFailed(e)) return undefined;
        throw e;
      }
    },

    /**
     * Claims attempt `attempt` (same attempt number, no live claim, attempt log
     * as read) and, in the same transaction, records the attempt in the
     * delivery's log and its id in the lookup, so the id a receiver sees always
     * resolves. 'taken' when another worker holds it or it is no longer due;
     * 'conflict' when a concurrent transaction got in the way (read and retry).
     */
    async claimAttempt(d: DeliveryRecord, attempt: number, claim: AttemptClaim, now: Date, claimMs: number): Promise<'claimed' | 'taken' | 'conflict'> {
      const entry = openEntry(claim.id, attempt, now);
      const cancelled = await transact(table.client, {
        delivery: {
          Update: {
            TableName: TableName(),
            Key: webhookKeys.delivery(d.id),
            UpdateExpression:
              'SET claimed_attempt = :a, claim_until = :until, claimed_at = :now, claim_id = :id, last_attempt_id = :id, attempt_log = list_append(if_not_exists(attempt_log, :empty), :entry)',
            ConditionExpression:
              '#s = :pending AND attempts = :prev AND (attribute_not_exists(claim_until) OR claim_until < :now OR claimed_attempt <> :a) AND (attribute_not_exists(attempt_log) OR size(attempt_log) = :len)',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: {
              ':a': attempt,
              ':until': now.getTime() + claimMs,
              ':pending': 'PENDING',
              ':prev': attempt - 1,
              ':now': now.getTime(),
              ':id': claim.id,
              ':empty': [],
              ':entry': [entry],
              ':len': claim.index,
            },
          },
        },
        lookup: attemptLookup(d, claim.id, attempt),
      });
      if (!cancelled) return 'claimed';
      if (cancelled.failed('delivery')) return 'taken';
      if (cancelled.conflict) return 'conflict';
      throw new Error(`attempt claim was cancelled (${cancelled.codes.join(', ')})`);
    },

    /**
     * Records the outcome of a claimed attempt, in its log entry too; a
     * delivery still PENDING moves to its next due time in the sweeper's
     * index. Only the holder of the claim records. `guards` (a seal) commit with it.
     * With `heedRecover`, a failed outcome is not recorded if a recover asked during the attempt for the next
     * one at once (requestRetryAfterAttempt): 'recover' says so, to record it again due now.
     */
    async recordAttempt(
      d: DeliveryRecord,
      attempt: number,
      claim: AttemptClaim,
      o: AttemptOutcome,
      guards: Guard[] = [],
      heedRecover = false,
    ): Promise<'recorded' | 'recover'> {
      const heed = heedRecover && !o.delivered;
      const pending = o.status === 'PENDING';
      const at = `attempt_log[${claim.index}]`;
      const update = {
        TableName: TableName(),
        Key: webhookKeys.delivery(d.id),
        UpdateExpression:
          'SET #s = :s, attempts = :a, last_http_status = :h, last_error = :e, last_attempt_at = :now, next_attempt_at = :next, updated_at = :now, delivered_at = :dat, dead_lettered_at = :dlat, ' +
          `${at}.http_status = :h, ${at}.response_time_ms = :rt, ${at}.#err = :e, ${at}.#res = :res, ${at}.#answer = :answer` +
          (o.attempted_at ? `, ${at}.attempted_at = :att` : '') +
          (pending ? ', gsi2sk = :g2' : ' REMOVE gsi2pk, gsi2sk'),
        ConditionExpression: `#s = :was AND claimed_attempt = :a AND attempts = :prev AND claim_id = :cid${heed ? ' AND (attribute_not_exists(redrive_claim) OR redrive_claim <> :cid)' : ''}`,
        ExpressionAttributeNames: { '#s': 'status', '#err': 'error', '#res': 'result', '#answer': 'response' },
        ExpressionAttributeValues: {
          ':s': o.status,
          ':was': 'PENDING',
          ':answer': o.response ?? null,
          ':a': attempt,
          ':prev': attempt - 1,
          ':cid': claim.id,
          ':h': o.http_status,
          ':e': o.error,
          ':rt': o.response_time_ms,
          ':res': o.delivered ? 'SUCCEEDED' : 'FAILED',
          ':now': o.at,
          ':next': o.next_attempt_at,
          ':dat': o.delivered ? o.at : null,
          // A test send that failed is not dead-lettered: it was never meant to be retried.
          ':dlat': o.status === 'FAILED' && !d.test_send ? o.at : null,
          ...(pending ? { ':g2': webhookKeys.pending(o.sweep_at ?? o.next_attempt_at!, d.id).gsi2sk } : {}),
          ...(o.attempted_at ? { ':att': o.attempted_at } : {}),
        },
      };
      const refused = async (why: string) => {
        if (heed) {
          const now = await store.getDelivery(d.id);
          if (now?.claim_id === claim.id && now.attempts === attempt - 1 && now.redrive_claim === claim.id) return 'recover' as const;
        }
        throw new Error(`attempt ${attempt} of delivery ${d.id} could not be recorded (${why})`);
      };
      if (guards.length === 0 && pending) {
        // Nothing to commit with it: one conditional write, not a transaction.
        try {
          await table.client.send(new UpdateCommand(update));
          return 'recorded';
        } catch (e) {
          if (isConditionFailed(e)) return refused('ConditionalCheckFailed');
          throw e;
        }
      }
      // Settled (DELIVERED or FAILED): the endpoint's count of PENDING deliveries goes down with it (a shard picked
      // afresh in each round).
      for (let round = 0; ; round++) {
        const cancelled = await transact(table.client, { delivery: { Update: update } }, pending ? [] : [pendingDelta(d, -1)], guards);
        if (!cancelled) return 'recorded';
        // Outcomes recorded at once may meet on a shard of the count (a burst to one endpoint has dozens in flight):
        // tried again on another shard.
        if (!cancelled.conflict || cancelled.failed('delivery') || round >= COUNT_RETRIES) return refused(cancelled.codes.join(', '));
        await backoff(round, 10, COUNT_BACKOFF_CAP_MS);
      }
    },

    /** A new delivery created with its first attempt already claimed (a test send), with its attempt lookup. */
    putClaimedDelivery(d: DeliveryRecord, claim: AttemptClaim): TransactItem[] {
      // An attempt that carries the delivery's own id needs no lookup: the id finds the delivery.
      const put = [store.putDelivery(d), pendingDelta(d, 1)];
      return claim.id === d.id ? put : [...put, attemptLookup(d, claim.id, 1)];
    },

    /**
     * The items that create new deliveries: each one, its endpoint's row, and one shard of each endpoint's count of
     * PENDING deliveries raised by its new ones (one shard per endpoint and transaction). At most 2 items per
     * delivery and one per endpoint.
     */
    createDeliveries(ds: DeliveryRecord[]): TransactItem[] {
      const perEndpoint = new Map<string, { d: DeliveryRecord; n: number }>();
      for (const d of ds) {
        const k = `${d.partner_id}#${d.env}#${d.endpoint_id}`;
        perEndpoint.set(k, { d, n: (perEndpoint.get(k)?.n ?? 0) + 1 });
      }
      return [...ds.flatMap((d) => [store.putDelivery(d), store.deliveryRow(d)]), ...[...perEndpoint.values()].map(({ d, n }) => pendingDelta(d, n))];
    },

    /**
     * The endpoints' counts of PENDING deliveries, by endpoint id: the sum of each one's shards, read strongly
     * consistent in one Query. Each shard is one item, changed whole by the transaction that changes it, so the sum
     * is exact as of the read. `exact` is false for an endpoint older than the counts (no marker): its shards hold
     * only the changes made since.
     */
    async pendingCounts(partnerId: string, env: Env): Promise<Map<string, { pending: number; exact: boolean }>> {
      const items = await queryAll(table, {
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :c)',
        ExpressionAttributeValues: { ':p': webhookKeys.endpointsPartition(partnerId, env), ':c': webhookKeys.pendingCountPrefix },
        ConsistentRead: true,
      });
      const counts = new Map<string, { pending: number; exact: boolean }>();
      for (const i of items) {
        // PENDING#<endpoint> is the marker, PENDING#<endpoint>#<shard> a shard.
        const [id, shard] = (i.sk as string).slice(webhookKeys.pendingCountPrefix.length).split('#') as [string, string | undefined];
        const c = counts.get(id) ?? { pending: 0, exact: false };
        c.pending += Number(i.pending ?? 0);
        if (shard === undefined && i.exact === true) c.exact = true;
        counts.set(id, c);
      }
      return counts;
    },

    /**
     * Makes a PENDING delivery's next attempt due now (a replay): the sealed
     * answer is the delivery as changed. Undefined when it is no longer
     * PENDING or moved on meanwhile.
     */
    async redriveNow(d: DeliveryRecord, now: Date, seal: Seal<DeliveryRecord> = unsealed, onlyIfDueAt?: string): Promise<DeliveryRecord | undefined> {
      const iso = now.toISOString();
      const next: DeliveryRecord = { ...d, next_attempt_at: iso, updated_at: iso };
      const cancelled = await transact(
        table.client,
        {
          delivery: {
            Update: {
              TableName: TableName(),
              Key: webhookKeys.delivery(d.id),
              UpdateExpression: 'SET next_attempt_at = :now, updated_at = :now, gsi2pk = :g2p, gsi2sk = :g2s',
              // With onlyIfDueAt, also still due when it was read: of two calls bringing it forward, one does.
              ConditionExpression: `#s = :pending AND attempts = :prev${onlyIfDueAt ? ' AND next_attempt_at = :due' : ''}`,
              ExpressionAttributeNames: { '#s': 'status' },
              ExpressionAttributeValues: {
                ':now': iso,
                ':pending': 'PENDING',
                ':prev': d.attempts,
                ...(onlyIfDueAt ? { ':due': onlyIfDueAt } : {}),
                ':g2p': webhookKeys.pendingPartition,
                ':g2s': webhookKeys.pending(notAfterNow(iso), d.id).gsi2sk,
              },
            },
          },
        },
        [],
        seal.items(next),
      );
      if (!cancelled) return next;
      if (cancelled.failed('delivery') || cancelled.conflict) return undefined;
      throw new Error(`replay was cancelled (${cancelled.codes.join(', ')})`);
    },

    /** A partner's deliveries in one environment, newest first by created_at, optionally by status, endpoint and event. */
    async listDeliveries(partnerId: string, env: Env, q: DeliveryFilter, after?: string) {
      const values: Record<string, unknown> = {};
      const names: Record<string, string> = {};
      const filters: string[] = [];
      if (q.status?.length) {
        names['#s'] = 'status';
        filters.push(inList('#s', q.status, values, 's'));
      }
      if (q.endpoint_id !== undefined) {
        values[':ep'] = q.endpoint_id;
        filters.push('endpoint_id = :ep');
      }
      if (q.event_id !== undefined) {
        values[':ev'] = q.event_id;
        filters.push('event_id = :ev');
      }
      if (q.event_type?.length) {
        names['#et'] = 'event_type';
        filters.push(inList('#et', q.event_type, values, 'et'));
      }
      if (q.booking_number !== undefined) {
        Object.assign(names, { '#evt': 'event', '#data': 'data' });
        values[':bn'] = q.booking_number;
        filters.push('#evt.#data.booking_number = :bn');
      }
      const filter = filters.length ? { expression: filters.join(' AND '), names, values } : undefined;
      const { items, next } = await newestFirst(
        table,
        {
          index: 'gsi1',
          partition: webhookKeys.deliveriesPartition(partnerId, env),
          itemKey: webhookKeys.deliveryFromIndexSort,
          filter,
          ...(q.created_from ? { between: { from: q.created_from, to: '\uffff' } } : {}),
        },
        q.limit,
        after,
      );
      return { items: items as unknown as DeliveryRecord[], next };
    },

    /**
     * How many deliveries of a partner's environment wait for an attempt, per endpoint: a Query of the
     * pending index (sparse: only PENDING deliveries, of every partner), at most `maxRead` items read.
     * `complete` is false when more were left unread (the counts are then lower bounds). From an index:
     * a delivery created or settled in the last second may be missed or still counted.
     */
    async pendingByEndpoint(partnerId: string, env: Env, maxRead = PENDING_READ_MAX): Promise<{ counts: Map<string, number>; complete: boolean }> {
      const counts = new Map<string, number>();
      let read = 0;
      let start: Item | undefined;
      do {
        const r = await table.client.send(
          new QueryCommand({
            TableName: TableName(),
            IndexName: 'gsi2',
            KeyConditionExpression: 'gsi2pk = :p',
            FilterExpression: 'partner_id = :partner AND #env = :env',
            ProjectionExpression: 'endpoint_id',
            ExpressionAttributeNames: { '#env': 'env' },
            ExpressionAttributeValues: { ':p': webhookKeys.pendingPartition, ':partner': partnerId, ':env': env },
            Limit: Math.min(maxRead - read, 1_000),
            ExclusiveStartKey: start,
          }),
        );
        for (const i of r.Items ?? []) counts.set(i.endpoint_id as string, (counts.get(i.endpoint_id as string) ?? 0) + 1);
        read += r.ScannedCount ?? 0;
        start = r.LastEvaluatedKey;
      } while (start && read < maxRead);
      return { counts, complete: !start };
    },

    /** Deliveries whose next attempt was due before `cutoff`, a page at a time. */
    dueBefore(cutoff: string): AsyncGenerator<Item[]> {
      return indexBefore(table, 'gsi2', webhookKeys.pendingPartition, cutoff);
    },

    /**
     * Drops the claim on a PENDING delivery's attempt if it was taken before `claimedBefore` (the restart:
     * the worker that held it is gone). A claim taken since is kept: a worker of this run holds it and may
     * be sending. A claim without its time predates the field, so the restart too.
     */
    async releaseClaim(id: string, claimedBefore: Date): Promise<void> {
      try {
        await table.client.send(
          new UpdateCommand({
            TableName: TableName(),
            Key: webhookKeys.delivery(id),
            UpdateExpression: 'REMOVE claimed_attempt, claim_until, claimed_at',
            ConditionExpression: '#s = :pending AND (attribute_not_exists(claimed_at) OR claimed_at < :boot)',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':pending': 'PENDING', ':boot': claimedBefore.getTime() },
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
