import type { Tenant } from '../kernel/tenant';
import type { DeliveryStatus } from './model';
import { webhookStore } from './store';

/** The tenant's delivery log, newest first by created_at; `after` is the index sort key of the last row of the previous page. */
export const listDeliveries = (t: Tenant, q: { limit: number; status?: DeliveryStatus[] }, after?: string) =>
  webhookStore.listDeliveries(t.partnerId, t.env, q, after);
