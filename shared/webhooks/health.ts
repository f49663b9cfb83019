import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { accessStore } from '../access/store';
import { dataTable, transact } from '../db/client';
import { isConditionFailed } from '../db/errors';
import { loadConfig } from '../kernel/config';
import { logger } from '../kernel/logger';
import type { Env } from '../kernel/tenant';
import { deliver } from '../mail/deliver';
import { webhookKeys } from './keys';
import type { EndpointRecord } from './model';

/**
 * How long an endpoint may fail every delivery before its team is warned, and before it is disabled
 * (Svix's rule: 5 days). Set per deployment; a sandbox partner ages a streak with the test helper.
 */
const healthConfig = z.object({
  WEBHOOK_WARN_AFTER_HOURS: z.coerce.number().positive().default(24),
  WEBHOOK_DISABLE_AFTER_HOURS: z.coerce.number().positive().default(120),
});
export const healthThresholds = () => loadConfig(healthConfig);

const HOUR = 3_600_000;

/** The partner's admins and developers: who hears that an endpoint is failing. */
async function recipients(partnerId: string): Promise<string[]> {
  const members = await accessStore.listMembers(partnerId);
  return members.filter((m) => m.enabled && (m.role === 'PARTNER_ADMIN' || m.role === 'DEVELOPER')).map((m) => m.email);
}

async function tell(e: EndpointRecord, kind: 'warning' | 'disabled', hours: number) {
  const prefix = e.env === 'test' ? '[TEST] ' : '';
  const env = e.env === 'test' ? 'sandbox' : 'live';
  const subject =
    kind === 'warning'
      ? `${prefix}Webhook endpoint failing for ${Math.floor(hours)} hours`
      : `${prefix}Webhook endpoint disabled after ${Math.floor(hours / 24)} days of failures`;
  const text = [
    // The URL as parsed: a raw string could carry line breaks into the e-mail.
    `Every delivery to your ${env} webhook endpoint ${e.id} (${new URL(e.url).href}) has failed since ${e.failing_since}.`,
    '',
    kind === 'warning'
      ? `If it keeps failing, it is disabled after ${healthThresholds().WEBHOOK_DISABLE_AFTER_HOURS} hours of failures. The deliveries stay in the delivery log (GET /v1/webhooks/deliveries?endpoint_id=${e.id}).`
      : `It is now DISABLED and receives nothing. Nothing was deleted: the deliveries stay in the delivery log. Once your receiver answers 2xx again, POST /v1/webhooks/${e.id}/recover with {"since": "${e.failing_since}", "enable": true} re-enables it and re-sends every event it missed, once each.`,
  ].join('\n');
  const to = await recipients(e.partner_id);
  await deliver(
    to.map((address) => ({ to: address, subject, text })),
    { partner_id: e.partner_id, environment: e.env, endpoint_id: e.id, kind },
  );
}

/**
 * After a failed attempt recorded on an ACTIVE endpoint: past the warning threshold its team is told
 * once; past the disable threshold the endpoint is DISABLED (reason `failing`) and its team is told.
 * Each step is a conditional write on the streak it read, so concurrent workers act once, and a
 * success recorded meanwhile (which ends the streak) stops both.
 */
export async function judgeFailingEndpoint(e: EndpointRecord, now: Date): Promise<'disabled' | 'warned' | undefined> {
  if (e.status !== 'ACTIVE' || !e.failing_since) return undefined;
  const { WEBHOOK_WARN_AFTER_HOURS: warnAfter, WEBHOOK_DISABLE_AFTER_HOURS: disableAfter } = healthThresholds();
  const hours = (now.getTime() - Date.parse(e.failing_since)) / HOUR;
  const key = webhookKeys.endpoint(e.partner_id, e.env, e.id);
  if (hours >= disableAfter) {
    const at = now.toISOString();
    const cancelled = await transact(
      dataTable.client,
      {
        endpoint: {
          Update: {
            TableName: dataTable.name(),
            Key: key,
            UpdateExpression: 'SET #s = :disabled, disabled_reason = :failing, disabled_at = :at, updated_at = :at',
            // Unchanged since read (updated_at): the subscriptions deleted are exactly the ones it has.
            ConditionExpression: '#s = :active AND failing_since = :fs AND updated_at = :u',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: {
              ':disabled': 'DISABLED',
              ':active': 'ACTIVE',
              ':failing': 'failing',
              ':at': at,
              ':fs': e.failing_since,
              ':u': e.updated_at,
            },
          },
        },
      },
      // A DISABLED endpoint is in no subscription index: the fan-out stops sending it events.
      e.event_types.map((type) => ({ Delete: { TableName: dataTable.name(), Key: webhookKeys.subscription(e.env, type, e.partner_id, e.id) } })),
    );
    if (cancelled) return undefined;
    logger.warn('webhook endpoint disabled after sustained failures', { partner_id: e.partner_id, environment: e.env, endpoint_id: e.id, hours });
    await tell(e, 'disabled', hours);
    return 'disabled';
  }
  if (hours >= warnAfter && !e.failure_warned_at) {
    try {
      await dataTable.client.send(
        new UpdateCommand({
          TableName: dataTable.name(),
          Key: key,
          UpdateExpression: 'SET failure_warned_at = :at',
          ConditionExpression: '#s = :active AND failing_since = :fs AND attribute_not_exists(failure_warned_at)',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':active': 'ACTIVE', ':fs': e.failing_since, ':at': now.toISOString() },
        }),
      );
    } catch (err) {
      if (isConditionFailed(err)) return undefined;
      throw err;
    }
    await tell(e, 'warning', hours);
    return 'warned';
  }
  return undefined;
}

/** Sandbox: moves the start of an endpoint's failure streak `hours` back, so the next failed attempt meets the thresholds now. */
export async function ageFailureStreak(partnerId: string, env: Env, id: string, hours: number, now = new Date()): Promise<EndpointRecord | undefined> {
  try {
    const r = await dataTable.client.send(
      new UpdateCommand({
        TableName: dataTable.name(),
        Key: webhookKeys.endpoint(partnerId, env, id),
        UpdateExpression: 'SET failing_since = :fs REMOVE failure_warned_at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':fs': new Date(now.getTime() - hours * HOUR).toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return r.Attributes as EndpointRecord;
  } catch (err) {
    if (isConditionFailed(err)) return undefined;
    throw err;
  }
}
