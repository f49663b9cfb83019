import { randomUUID } from 'node:crypto';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { ddb } from '../aws';
import { dataTableName, loadConfig } from '../config';
import type { EventEnvelope } from '../events/record';
import { logger } from '../logger';
import { sendAttempt } from './sender';

/**
 * The delivery pipeline:
 *   event recorded with its state change -> fan-out message (SQS) -> one
 *   delivery per ACTIVE endpoint subscribed to the type, in one transaction
 *   with marking the event dispatched -> attempt messages (SQS) -> HTTPS POST.
 * A failed attempt is retried after 5 min, 15 min, 1 h, 6 h and 24 h through
 * EventBridge Scheduler one-time schedules that put the next attempt on the
 * queue; after the last one the delivery is FAILED and dead-lettered. Each
 * attempt is claimed with a conditional write, so two workers never send the
 * same attempt on purpose; a claim left by a worker that died expires, and the
 * sweeper re-drives what is overdue (at-least-once).
 */
export const RETRY_WAITS_SECONDS = [300, 900, 3600, 21_600, 86_400];
export const MAX_ATTEMPTS = RETRY_WAITS_SECONDS.length + 1;

/** The wait after failed attempt n (1-based) before attempt n + 1; undefined after the last one. */
export function retryDelayMs(failedAttempt: number, scale = 1): number | undefined {
  const wait = RETRY_WAITS_SECONDS[failedAttempt - 1];
  return wait === undefined ? undefined : wait * 1000 * scale;
}
/** Longer than the worker's timeout: a claim older than this was left by a worker that died. */
export const ATTEMPT_CLAIM_MS = 120_000;

const pipelineConfig = z.object({
  WEBHOOK_QUEUE_URL: z.string().optional(),
  WEBHOOK_QUEUE_URL_ARN: z.string().optional(),
  WEBHOOK_QUEUE_URL_DLQ: z.string().optional(),
  SCHEDULER_GROUP: z.string().default('webhook-retries'),
  SCHEDULER_ROLE_ARN: z.string().default('arn:aws:iam::123456789012:role/local-scheduler'),
  /** Local testing only: shrinks the retry waits without changing their shape. */
  WEBHOOK_WAIT_SCALE: z.coerce.number().positive().max(1).default(1),
});
const cfg = () => loadConfig(pipelineConfig);

let sqs: SQSClient | undefined;
let scheduler: SchedulerClient | undefined;
const T = () => dataTableName();

export type Message = { kind: 'fanout'; pk: string; sk: string } | { kind: 'attempt'; delivery_id: string; attempt: number };

export interface DeliveryRecord {
  id: string;
  partner_id: string;
  env: 'live' | 'test';
  event_id: string;
  event_type: string;
  event_ref: { pk: string; sk: string };
  endpoint_id: string;
  url: string;
  status: 'PENDING' | 'DELIVERED' | 'FAILED';
  attempts: number;
  last_http_status: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  dead_lettered_at: string | null;
  replay_of: string | null;
  test: boolean;
  created_at: string;
  updated_at: string;
  claimed_attempt?: number;
  claim_until?: number;
}

async function enqueue(messages: Message[]): Promise<void> {
  const url = cfg().WEBHOOK_QUEUE_URL;
  if (!url || messages.length === 0) {
    if (messages.length) logger.warn('webhook queue not configured: the sweeper will pick these up', { count: messages.length });
    return;
  }
  sqs ??= new SQSClient({});
  for (let i = 0; i < messages.length; i += 10) {
    const r = await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: messages.slice(i, i + 10).map((m, j) => ({ Id: String(j), MessageBody: JSON.stringify(m) })) }));
    if (r.Failed?.length) throw new Error(`could not enqueue ${r.Failed.length} webhook message(s)`);
  }
}

/** After a transaction recorded events: nudge the fan-out. A lost nudge is re-driven by the sweeper. */
export async function publishEvents(refs: { pk: string; sk: string }[]): Promise<void> {
  try {
    await enqueue(refs.map((r) => ({ kind: 'fanout' as const, ...r })));
  } catch (e) {
    logger.warn('event fan-out deferred to the sweeper', { error: (e as Error).message });
  }
}

export interface EndpointRecord {
  id: string;
  partner_id: string;
  env: 'live' | 'test';
  url: string;
  event_types: string[];
  status: 'ACTIVE' | 'DISABLED';
  description: string | null;
  signing_secret: string;
  last_http_status: number | null;
  last_delivery_at: string | null;
  created_at: string;
  updated_at: string;
}

export const endpointKey = (partnerId: string, env: string, id: string) => ({ pk: `WH#${partnerId}#${env}`, sk: `EP#${id}` });

export async function endpointsOf(partnerId: string, env: string): Promise<EndpointRecord[]> {
  const r = await ddb.send(new QueryCommand({ TableName: T(), KeyConditionExpression: 'pk = :p AND begins_with(sk, :e)', ExpressionAttributeValues: { ':p': `WH#${partnerId}#${env}`, ':e': 'EP#' }, ConsistentRead: true }));
  return (r.Items ?? []) as EndpointRecord[];
}

function newDelivery(ev: EventEnvelope, ref: { pk: string; sk: string }, ep: EndpointRecord, now: Date, replayOf: string | null = null): DeliveryRecord {
  const iso = now.toISOString();
  return {
    id: randomUUID(),
    partner_id: ep.partner_id,
    env: ep.env,
    event_id: ev.id,
    event_type: ev.type,
    event_ref: ref,
    endpoint_id: ep.id,
    url: ep.url,
    status: 'PENDING',
    attempts: 0,
    last_http_status: null,
    last_error: null,
    last_attempt_at: null,
    next_attempt_at: iso,
    delivered_at: null,
    dead_lettered_at: null,
    replay_of: replayOf,
    test: ev.test,
    created_at: iso,
    updated_at: iso,
  };
}

function deliveryItem(d: DeliveryRecord) {
  return {
    pk: `DLV#${d.id}`,
    sk: 'DLV',
    type: 'delivery',
    ...d,
    gsi1pk: `DLVS#${d.partner_id}#${d.env}`,
    gsi1sk: `${d.created_at}#${d.id}`,
    // Sparse: only deliveries still waiting, by when their next attempt is due (for the sweeper).
    gsi2pk: 'DLV#PENDING',
    gsi2sk: `${d.next_attempt_at}#${d.id}`,
  };
}

/** Fans one recorded event out: a delivery per matching endpoint, written with the event's dispatched mark. */
export async function fanOut(ref: { pk: string; sk: string }, now = new Date()): Promise<number> {
  const got = await ddb.send(new GetCommand({ TableName: T(), Key: ref, ConsistentRead: true }));
  if (!got.Item || got.Item.dispatch !== 'PENDING') return 0;
  const ev = got.Item.event as EventEnvelope;
  // At most 16 endpoints per environment (enforced at creation), so the transaction stays far below 100 items.
  const endpoints = (await endpointsOf(got.Item.partner_id as string, got.Item.env as string)).filter((e) => e.status === 'ACTIVE' && e.event_types.includes(ev.type)).slice(0, 16);
  const deliveries = endpoints.map((ep) => newDelivery(ev, ref, ep, now));
  try {
    await ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: T(),
              Key: ref,
              UpdateExpression: 'SET dispatch = :done, dispatched_at = :now, delivery_count = :n REMOVE gsi1pk, gsi1sk',
              ConditionExpression: 'dispatch = :pending',
              ExpressionAttributeValues: { ':done': 'DONE', ':pending': 'PENDING', ':now': now.toISOString(), ':n': deliveries.length },
            },
          },
          ...deliveries.map((d) => ({ Put: { TableName: T(), Item: deliveryItem(d), ConditionExpression: 'attribute_not_exists(pk)' } })),
        ],
      }),
    );
  } catch (e) {
    if ((e as Error).name === 'TransactionCanceledException') return 0; // another worker fanned it out
    throw e;
  }
  await enqueue(deliveries.map((d) => ({ kind: 'attempt' as const, delivery_id: d.id, attempt: 1 })));
  return deliveries.length;
}

async function loadDelivery(id: string): Promise<DeliveryRecord | undefined> {
  const r = await ddb.send(new GetCommand({ TableName: T(), Key: { pk: `DLV#${id}`, sk: 'DLV' }, ConsistentRead: true }));
  return r.Item as DeliveryRecord | undefined;
}

function atExpression(when: Date): string {
  // Scheduler's at() has whole seconds; round up so a retry never comes early.
  return `at(${new Date(Math.ceil(when.getTime() / 1000) * 1000).toISOString().slice(0, 19)})`;
}

async function scheduleAttempt(d: DeliveryRecord, attempt: number, due: Date): Promise<void> {
  const c = cfg();
  scheduler ??= new SchedulerClient({});
  await scheduler.send(
    new CreateScheduleCommand({
      Name: `dlv-${d.id}-${attempt}`,
      GroupName: c.SCHEDULER_GROUP,
      ScheduleExpression: atExpression(due),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: { Arn: c.WEBHOOK_QUEUE_URL_ARN!, RoleArn: c.SCHEDULER_ROLE_ARN, Input: JSON.stringify({ kind: 'attempt', delivery_id: d.id, attempt } satisfies Message) },
    }),
  );
}

/**
 * Sends attempt `attempt` of a delivery if it is still due: claims it with a
 * conditional write (same attempt number, no live claim), posts, records the
 * outcome, and schedules the next attempt or dead-letters the delivery.
 */
export async function runAttempt(deliveryId: string, attempt: number, now = new Date()): Promise<'sent' | 'skipped'> {
  const d = await loadDelivery(deliveryId);
  if (!d || d.status !== 'PENDING' || d.attempts !== attempt - 1) return 'skipped';
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: T(),
        Key: { pk: `DLV#${d.id}`, sk: 'DLV' },
        UpdateExpression: 'SET claimed_attempt = :a, claim_until = :until',
        ConditionExpression: '#s = :pending AND attempts = :prev AND (attribute_not_exists(claim_until) OR claim_until < :now OR claimed_attempt <> :a)',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':a': attempt, ':until': now.getTime() + ATTEMPT_CLAIM_MS, ':pending': 'PENDING', ':prev': attempt - 1, ':now': now.getTime() },
      }),
    );
  } catch (e) {
    if ((e as Error).name === 'ConditionalCheckFailedException') return 'skipped';
    throw e;
  }
  const [event, endpoint] = await Promise.all([
    ddb.send(new GetCommand({ TableName: T(), Key: d.event_ref })).then((r) => r.Item?.event as EventEnvelope | undefined),
    ddb.send(new GetCommand({ TableName: T(), Key: endpointKey(d.partner_id, d.env, d.endpoint_id) })).then((r) => r.Item as EndpointRecord | undefined),
  ]);
  const result =
    !event || !endpoint || endpoint.status !== 'ACTIVE'
      ? { delivered: false, http_status: null, error: !endpoint ? 'endpoint deleted' : endpoint.status !== 'ACTIVE' ? 'endpoint disabled' : 'event missing', response_time_ms: 0 }
      : await sendAttempt({ url: endpoint.url, secret: endpoint.signing_secret, body: envelopeBytes(event), eventId: event.id, eventType: event.type, deliveryId: randomUUID() });
  const finished = new Date();
  const iso = finished.toISOString();
  const willFail = !result.delivered && (attempt >= MAX_ATTEMPTS || !endpoint || endpoint.status !== 'ACTIVE');
  if (willFail) {
    // The DLQ message goes first: if recording FAILED then fails, the claim expires and the sweeper
    // retries the attempt (a duplicate dead letter at worst), so no dead letter is ever lost.
    const dlq = cfg().WEBHOOK_QUEUE_URL_DLQ;
    if (dlq) {
      sqs ??= new SQSClient({});
      await sqs.send(new SendMessageCommand({ QueueUrl: dlq, MessageBody: JSON.stringify({ kind: 'dead_letter', delivery_id: d.id, event_id: d.event_id, endpoint_id: d.endpoint_id, attempts: attempt, last_error: result.error, last_http_status: result.http_status }) }));
    }
  }
  const final = result.delivered || attempt >= MAX_ATTEMPTS || !endpoint || endpoint.status !== 'ACTIVE';
  const status: DeliveryRecord['status'] = result.delivered ? 'DELIVERED' : final ? 'FAILED' : 'PENDING';
  const delay = retryDelayMs(attempt, cfg().WEBHOOK_WAIT_SCALE);
  const next = status === 'PENDING' && delay !== undefined ? new Date(finished.getTime() + delay) : null;
  await ddb.send(
    new UpdateCommand({
      TableName: T(),
      Key: { pk: `DLV#${d.id}`, sk: 'DLV' },
      UpdateExpression:
        'SET #s = :s, attempts = :a, last_http_status = :h, last_error = :e, last_attempt_at = :now, next_attempt_at = :next, updated_at = :now, delivered_at = :dat, dead_lettered_at = :dlat' +
        (status === 'PENDING' ? ', gsi2sk = :g2' : ' REMOVE gsi2pk, gsi2sk'),
      ConditionExpression: 'claimed_attempt = :a AND attempts = :prev',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: {
        ':s': status,
        ':a': attempt,
        ':prev': attempt - 1,
        ':h': result.http_status,
        ':e': result.error,
        ':now': iso,
        ':next': next?.toISOString() ?? null,
        ':dat': result.delivered ? iso : null,
        ':dlat': status === 'FAILED' ? iso : null,
        ...(status === 'PENDING' ? { ':g2': `${next!.toISOString()}#${d.id}` } : {}),
      },
    }),
  );
  if (endpoint && result.http_status !== null) {
    await ddb.send(
      new UpdateCommand({
        TableName: T(),
        Key: endpointKey(d.partner_id, d.env, d.endpoint_id),
        UpdateExpression: 'SET last_http_status = :h, last_delivery_at = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':h': result.http_status, ':now': iso },
      }),
    ).catch(() => undefined);
  }
  if (status === 'PENDING') await scheduleAttempt(d, attempt + 1, next!);
  return 'sent';
}

/** A new delivery of the same event to the same endpoint, attempted now (new delivery ids). */
export async function replayDelivery(original: DeliveryRecord, now = new Date()): Promise<DeliveryRecord> {
  const ev = (await ddb.send(new GetCommand({ TableName: T(), Key: original.event_ref }))).Item?.event as EventEnvelope;
  const ep = (await ddb.send(new GetCommand({ TableName: T(), Key: endpointKey(original.partner_id, original.env, original.endpoint_id) }))).Item as EndpointRecord | undefined;
  const d = newDelivery(ev, original.event_ref, ep ?? ({ partner_id: original.partner_id, env: original.env, id: original.endpoint_id, url: original.url } as EndpointRecord), now, original.id);
  await ddb.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: T(), Item: deliveryItem(d), ConditionExpression: 'attribute_not_exists(pk)' } }] }));
  await enqueue([{ kind: 'attempt', delivery_id: d.id, attempt: 1 }]);
  return d;
}

/** Re-drives events never fanned out and deliveries whose attempt is overdue, page by page. */
export async function sweep(now = new Date(), graceMs = 120_000): Promise<{ events: number; deliveries: number }> {
  const cutoff = new Date(now.getTime() - graceMs).toISOString();
  const count = { events: 0, deliveries: 0 };
  for (const [index, partition, kind] of [['gsi1', 'EVENTS#PENDING', 'events'], ['gsi2', 'DLV#PENDING', 'deliveries']] as const) {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await ddb.send(
        new QueryCommand({
          TableName: T(),
          IndexName: index,
          KeyConditionExpression: `${index}pk = :p AND ${index}sk < :c`,
          ExpressionAttributeValues: { ':p': partition, ':c': cutoff },
          Limit: 500,
          ExclusiveStartKey,
        }),
      );
      const items = page.Items ?? [];
      await enqueue(
        kind === 'events'
          ? items.map((i) => ({ kind: 'fanout' as const, pk: i.pk as string, sk: i.sk as string }))
          : items.map((i) => ({ kind: 'attempt' as const, delivery_id: i.id as string, attempt: (i.attempts as number) + 1 })),
      );
      count[kind] += items.length;
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }
  return count;
}

/** The envelope in its documented field order (DynamoDB maps do not keep order). */
export function envelopeBytes(e: EventEnvelope): string {
  return JSON.stringify({ id: e.id, type: e.type, created_at: e.created_at, test: e.test, data: e.data });
}

export { loadDelivery };
