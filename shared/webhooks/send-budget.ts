import { dataTable } from '../db/client';
import { ApiError } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import { type RateLimitState, spendBudget } from '../platform/rate-limit';
import { webhookKeys } from './keys';
import { MANUAL_SENDS_PER_MINUTE } from './model';

const exceeded = (rate: RateLimitState, scope: keyof typeof MANUAL_SENDS_PER_MINUTE, endpointId: string) =>
  new ApiError(
    'webhook.send.budget_exceeded',
    `At most ${rate.limit} replays and test sends a minute ${scope === 'endpoint' ? 'to one endpoint' : 'to all your endpoints of this environment'}; retry after ${rate.retryAfter} s.`,
    { scope, endpoint_id: endpointId, limit_per_minute: rate.limit, retry_after_seconds: rate.retryAfter },
    { 'retry-after': String(rate.retryAfter) },
  );

/**
 * Spends one manual send to the tenant's endpoint, or answers 429 webhook.send.budget_exceeded. Called before
 * anything is sent, so a refused call sends nothing. Counted in real time, whatever a sandbox clock says (the
 * URL receives them in real time); the endpoint's budget first, so a burst at one endpoint spends nothing of the others'.
 */
export async function spendManualSend(t: Tenant, endpointId: string, nowMs = Date.now()): Promise<void> {
  const one = await spendBudget(dataTable, (w) => webhookKeys.sendBudget(t.partnerId, t.env, endpointId, w), MANUAL_SENDS_PER_MINUTE.endpoint, nowMs);
  if (one.exceeded) throw exceeded(one, 'endpoint', endpointId);
  const all = await spendBudget(dataTable, (w) => webhookKeys.sendBudget(t.partnerId, t.env, null, w), MANUAL_SENDS_PER_MINUTE.environment, nowMs);
  if (all.exceeded) throw exceeded(all, 'environment', endpointId);
}
