import { catalogScopes } from '../catalog/scopes';
import type { Tenant } from '../kernel/tenant';

/**
 * The review spaces of a tenant: consumer-site reviews come with its catalog
 * content (PROD, or its sandbox snapshot), partners' reviews with its
 * inventory (LIVE, or its own SBX#<partner>): a sandbox tenant sees the cloned
 * consumer reviews and its own, nothing of live nor of other tenants.
 */
export async function reviewSpaces(t: Tenant): Promise<{ content: string; own: string; all: string[] }> {
  const { content, inventory } = await catalogScopes(t);
  return { content, own: inventory, all: [content, inventory] };
}
