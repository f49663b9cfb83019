import { notFound } from '../kernel/errors';
import type { Tenant } from '../kernel/tenant';
import type { QuoteRecord } from './model';
import { quoteStore } from './store';

/** A quote of this partner and environment; anything else is 404. */
export async function getQuote(t: Tenant, id: string): Promise<QuoteRecord> {
  const q = await quoteStore.get(id);
  if (!q || q.partner_id !== t.partnerId || q.env !== t.env) throw notFound('Quote', id);
  return q;
}

/** Most recent first; `after` is the sort key of the last row of the previous page. */
export const listQuotes = (t: Tenant, limit: number, after?: string) => quoteStore.listForTenant(t.partnerId, t.env, limit, after);
