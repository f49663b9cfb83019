import { randomBytes, randomUUID } from 'node:crypto';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '../aws';
import { dataTableName } from '../config';
import { queryPage } from '../db';
import { ApiError, notFound } from '../errors';
import type { EventEnvelope, EventType } from '../events/record';
import type { Principal } from '../http/context';
import { endpointKey, endpointsOf, loadDelivery, replayDelivery, type DeliveryRecord, type EndpointRecord } from './pipeline';
import { sendAttempt } from './sender';
import { checkWebhookUrl } from './ssrf';

export const MAX_ENDPOINTS = 16;
export const TEST_SEND_TIMEOUT_MS = 8_000;

export function endpointView(e: EndpointRecord) {
  return {
    id: e.id,
    url: e.url,
    event_types: e.event_types,
    status: e.status,
    description: e.description,
    last_http_status: e.last_http_status,
    last_delivery_at: e.last_delivery_at,
    created_at: e.created_at,
    updated_at: e.updated_at,
  };
}

export function deliveryView(d: DeliveryRecord) {
  return {
    id: d.id,
    event_id: d.event_id,
    event_type: d.event_type,
    endpoint_id: d.endpoint_id,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    last_http_status: d.last_http_status,
    last_error: d.last_error,
    last_attempt_at: d.last_attempt_at,
    next_attempt_at: d.status === 'PENDING' ? d.next_attempt_at : null,
    delivered_at: d.delivered_at,
    dead_lettered_at: d.dead_lettered_at,
    replay_of: d.replay_of,
    test: d.test,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

async function vetUrl(url: string) {
  const c = await checkWebhookUrl(url);
  if (!c.ok) throw new ApiError('webhook.url.refused', `This URL cannot receive webhooks: ${c.reason}.`, { url, reason: c.reason });
}

export async function createEndpoint(p: Principal, input: { url: string; event_types: EventType[]; description?: string }, now = new Date()) {
  await vetUrl(input.url);

  const iso = now.toISOString();
  const e: EndpointRecord = {
    id: randomUUID(),
    partner_id: p.partnerId,
    env: p.env,
    url: input.url,
    event_types: [...new Set(input.event_types)].sort(),
    status: 'ACTIVE',
    description: input.description ?? null,
    // Kept to sign deliveries; returned only by this call.
    signing_secret: `whsec_${randomBytes(32).toString('base64url')}`,
    last_http_status: null,
    last_delivery_at: null,
    created_at: iso,
    updated_at: iso,
  };
  // The endpoint and its count in one transaction: the limit holds under concurrent creations.
  try {
    await ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: dataTableName(),
              Key: { pk: `WH#${p.partnerId}#${p.env}`, sk: 'COUNT' },
              UpdateExpression: 'ADD endpoints :one',
              ConditionExpression: 'attribute_not_exists(endpoints) OR endpoints < :max',
              ExpressionAttributeValues: { ':one': 1, ':max': MAX_ENDPOINTS },
            },
          },
          { Put: { TableName: dataTableName(), Item: { ...endpointKey(p.partnerId, p.env, e.id), type: 'webhook_endpoint', ...e }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
  } catch (err) {
    if ((err as Error).name === 'TransactionCanceledException') throw new ApiError('webhook.endpoint.limit', `At most ${MAX_ENDPOINTS} endpoints per environment.`, { max: MAX_ENDPOINTS });
    throw err;
  }
  return { ...endpointView(e), signing_secret: e.signing_secret };
}

export async function getEndpoint(p: Principal, id: string): Promise<EndpointRecord> {
  const r = await ddb.send(new GetCommand({ TableName: dataTableName(), Key: endpointKey(p.partnerId, p.env, id), ConsistentRead: true }));
  if (!r.Item) throw notFound('Webhook endpoint', id);
  return r.Item as EndpointRecord;
}

export async function listEndpoints(p: Principal) {
  return (await endpointsOf(p.partnerId, p.env)).sort((a, b) => a.created_at.localeCompare(b.created_at)).map(endpointView);
}

export async function updateEndpoint(p: Principal, id: string, patch: { url?: string; event_types?: EventType[]; status?: 'ACTIVE' | 'DISABLED'; description?: string | null }, now = new Date()) {
  if (patch.url !== undefined) await vetUrl(patch.url);
  const sets: string[] = ['updated_at = :now'];
  const values: Record<string, unknown> = { ':now': now.toISOString() };
  const names: Record<string, string> = {};
  if (patch.url !== undefined) (sets.push('#u = :u'), (values[':u'] = patch.url), (names['#u'] = 'url'));
  if (patch.event_types !== undefined) (sets.push('event_types = :t'), (values[':t'] = [...new Set(patch.event_types)].sort()));
  if (patch.status !== undefined) (sets.push('#s = :s'), (values[':s'] = patch.status), (names['#s'] = 'status'));
  if (patch.description !== undefined) (sets.push('description = :d'), (values[':d'] = patch.description));
  try {
    const r = await ddb.send(
      new UpdateCommand({
        TableName: dataTableName(),
        Key: endpointKey(p.partnerId, p.env, id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: values,
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return endpointView(r.Attributes as EndpointRecord);
  } catch (e) {
    if ((e as Error).name === 'ConditionalCheckFailedException') throw notFound('Webhook endpoint', id);
    throw e;
  }
}

export async function deleteEndpoint(p: Principal, id: string) {
  try {
    await ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: dataTableName(), Key: endpointKey(p.partnerId, p.env, id), ConditionExpression: 'attribute_exists(pk)' } },
          { Update: { TableName: dataTableName(), Key: { pk: `WH#${p.partnerId}#${p.env}`, sk: 'COUNT' }, UpdateExpression: 'ADD endpoints :minus', ExpressionAttributeValues: { ':minus': -1 } } },
        ],
      }),
    );
  } catch (e) {
    if ((e as Error).name === 'TransactionCanceledException') throw notFound('Webhook endpoint', id);
    throw e;
  }
  return { id, deleted: true };
}

/** Sends a synthetic signed event (test: true) to the endpoint now and reports what it answered. */
export async function testEndpoint(p: Principal, id: string, now = new Date()) {
  const e = await getEndpoint(p, id);
  const event: EventEnvelope = {
    id: randomUUID(),
    type: (e.event_types[0] ?? 'booking.confirmed') as EventType,
    created_at: now.toISOString(),
    test: true,
    data: { synthetic: true, endpoint_id: e.id, message: 'A test event sent from POST /webhooks/{id}/test.' },
  };
  const deliveryId = randomUUID();
  // Shorter than the delivery timeout so the answer always fits in the route's time.
  const r = await sendAttempt({ url: e.url, secret: e.signing_secret, body: JSON.stringify(event), eventId: event.id, eventType: event.type, deliveryId }, TEST_SEND_TIMEOUT_MS);
  if (r.http_status !== null) {
    await ddb.send(new UpdateCommand({ TableName: dataTableName(), Key: endpointKey(p.partnerId, p.env, id), UpdateExpression: 'SET last_http_status = :h, last_delivery_at = :n', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':h': r.http_status, ':n': new Date().toISOString() } }));
  }
  return { event_id: event.id, event_type: event.type, delivery_id: deliveryId, delivered: r.delivered, http_status: r.http_status, response_time_ms: r.response_time_ms, error: r.error };
}

export async function listDeliveries(p: Principal, q: { limit: number; status?: DeliveryRecord['status'][] }, after?: string) {
  const gsi1pk = `DLVS#${p.partnerId}#${p.env}`;
  const values: Record<string, unknown> = { ':p': gsi1pk };
  const filter = q.status?.length ? `#s IN (${q.status.map((s, i) => ((values[`:s${i}`] = s), `:s${i}`)).join(', ')})` : undefined;
  const { items, hasMore } = await queryPage(
    {
      TableName: dataTableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :p',
      ExpressionAttributeValues: values,
      ...(filter ? { FilterExpression: filter, ExpressionAttributeNames: { '#s': 'status' } } : {}),
      ScanIndexForward: false,
    },
    q.limit,
    after ? { gsi1pk, gsi1sk: after, pk: `DLV#${after.split('#')[1]}`, sk: 'DLV' } : undefined,
  );
  return { items: items.map((i) => deliveryView(i as unknown as DeliveryRecord)), next: hasMore ? (items.at(-1)!.gsi1sk as string) : undefined };
}

export async function replay(p: Principal, deliveryId: string) {
  const d = await loadDelivery(deliveryId);
  if (!d || d.partner_id !== p.partnerId || d.env !== p.env) throw notFound('Webhook delivery', deliveryId);
  return deliveryView(await replayDelivery(d));
}
