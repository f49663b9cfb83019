import { randomUUID } from 'node:crypto';
import { type Seal, unsealed } from '../db/client';
import type { EventType } from '../events/types';
import { tenantNow } from '../kernel/clock';
import { ApiError, notFound } from '../kernel/errors';
import type { Env, Tenant } from '../kernel/tenant';
import type { EndpointRecord } from './model';
import { mintSigningSecret } from './rotation';
import { checkWebhookUrl } from './ssrf';
import { type EndpointPatch, MAX_ENDPOINTS, webhookStore } from './store';
import { endpointView } from './views';

export { MAX_ENDPOINTS } from './store';

async function vetUrl(url: string) {
  const c = await checkWebhookUrl(url);
  if (!c.ok) throw new ApiError('webhook.url.refused', `This URL cannot receive webhooks: ${c.reason}.`, { url, reason: c.reason });
}

const eventTypesOf = (types: EventType[]) => [...new Set(types)].sort();

export async function createEndpoint(
  t: Tenant,
  input: { url: string; event_types: EventType[]; description?: string },
  seal: Seal<EndpointRecord> = unsealed,
  now = tenantNow(t),
): Promise<EndpointRecord> {
  await vetUrl(input.url);
  const iso = now.toISOString();
  const e: EndpointRecord = {
    id: randomUUID(),
    partner_id: t.partnerId,
    env: t.env,
    url: input.url,
    event_types: eventTypesOf(input.event_types),
    status: 'ACTIVE',
    description: input.description ?? null,
    // Kept to sign deliveries; returned only by this call.
    signing_secret: mintSigningSecret(),
    last_http_status: null,
    last_delivery_at: null,
    created_at: iso,
    updated_at: iso,
  };
  if ((await webhookStore.createEndpoint(e, seal)) === 'limit')
    throw new ApiError('webhook.endpoint.limit', `At most ${MAX_ENDPOINTS} endpoints per environment.`, { max: MAX_ENDPOINTS });
  return e;
}

export async function getEndpoint(t: Tenant, id: string): Promise<EndpointRecord> {
  const e = await webhookStore.getEndpoint(t.partnerId, t.env, id);
  if (!e) throw notFound('Webhook endpoint', id);
  return e;
}

/**
 * The endpoints, oldest first, each with how many of its deliveries are PENDING: its count, kept in the transactions
 * that change its deliveries' status (exact, read strongly consistent). An endpoint created before the counts has no
 * exact one: its figure comes from the pending index (one bounded Query, read only then), as before.
 */
export async function listEndpoints(t: Tenant) {
  const [endpoints, counts] = await Promise.all([webhookStore.listEndpoints(t.partnerId, t.env), webhookStore.pendingCounts(t.partnerId, t.env)]);
  const uncounted = endpoints.some((e) => !counts.get(e.id)?.exact);
  const index = uncounted ? await webhookStore.pendingByEndpoint(t.partnerId, t.env) : { counts: new Map<string, number>(), complete: true };
  const pendingOf = (id: string) => {
    const c = counts.get(id);
    return c?.exact ? Math.max(0, c.pending) : (index.counts.get(id) ?? 0);
  };
  return {
    data: endpoints.sort((a, b) => a.created_at.localeCompare(b.created_at)).map((e) => ({ ...endpointView(e), pending_deliveries: pendingOf(e.id) })),
    pending_complete: index.complete,
  };
}

export async function updateEndpoint(
  t: Tenant,
  id: string,
  patch: Omit<EndpointPatch, 'event_types'> & { event_types?: EventType[] },
  seal: Seal<EndpointRecord> = unsealed,
  now = tenantNow(t),
): Promise<EndpointRecord> {
  if (patch.url !== undefined) await vetUrl(patch.url);
  const updated = await webhookStore.updateEndpoint(
    t.partnerId,
    t.env,
    id,
    { ...patch, ...(patch.event_types ? { event_types: eventTypesOf(patch.event_types) } : {}) },
    now,
    seal,
  );
  if (!updated) throw notFound('Webhook endpoint', id);
  return updated;
}

export async function deleteEndpoint(t: Tenant, id: string, seal: Seal<{ id: string; deleted: true }> = unsealed) {
  if (!(await webhookStore.deleteEndpoint(t.partnerId, t.env, id, seal))) throw notFound('Webhook endpoint', id);
  return { id, deleted: true as const };
}

/**
 * Writes the subscription index items of every ACTIVE endpoint of these
 * partners (`webhooks:reindex`): once after deploying the index, for the
 * endpoints created before it. Idempotent; an endpoint changed meanwhile is
 * read again.
 */
export async function reindexSubscriptions(partnerIds: string[]): Promise<{ partners: number; endpoints: number }> {
  let endpoints = 0;
  for (const partnerId of partnerIds) {
    for (const env of ['live', 'test'] as Env[]) {
      for (const listed of await webhookStore.listEndpoints(partnerId, env)) {
        let e: EndpointRecord | undefined = listed;
        for (let attempt = 0; e && !(await webhookStore.indexSubscriptions(e)); attempt++) {
          if (attempt >= 5) throw new Error(`endpoint ${listed.id} kept changing while it was indexed`);
          e = await webhookStore.getEndpoint(partnerId, env, listed.id);
        }
        if (e?.status === 'ACTIVE') endpoints++;
      }
    }
  }
  return { partners: partnerIds.length, endpoints };
}
