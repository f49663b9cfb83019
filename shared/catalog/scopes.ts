import type { Tenant } from '../kernel/tenant';
import { type CatalogScope, inventoryKeys, PROD } from './keys';
import { catalogStore } from './store';

export interface CatalogScopes {
  /** Whose catalog content: PROD or the tenant's sandbox snapshot. */
  content: CatalogScope;
  /** Whose seats: LIVE, or SBX#<partner> for the tenant's isolated sandbox inventory. */
  inventory: string;
}

let currentSandbox: { scope: CatalogScope; at: number } | undefined;
const SANDBOX_POINTER_TTL_MS = 5_000;
/** Whether a snapshot holds no adventure: snapshots never change, so each is read once. */
const emptySnapshots = new Map<CatalogScope, boolean>();

async function isEmptySnapshot(scope: CatalogScope): Promise<boolean> {
  let empty = emptySnapshots.get(scope);
  if (empty === undefined) {
    empty = ((await catalogStore.meta(scope))?.adventure_count ?? 0) === 0;
    emptySnapshots.set(scope, empty);
  }
  return empty;
}

/**
 * Live keys see production; sandbox keys their tenant's clone (the current
 * snapshot until their first refresh). A tenant whose clone is empty (taken
 * while production was empty or importing) sees the current snapshot as soon
 * as there is one with the catalog, without waiting for the weekly refresh.
 */
export async function catalogScopes(t: Tenant): Promise<CatalogScopes> {
  if (t.env === 'live') return { content: PROD, inventory: inventoryKeys.live };
  let content = t.sandboxCatalog;
  if (!content || (await isEmptySnapshot(content))) {
    if (!currentSandbox || Date.now() - currentSandbox.at > SANDBOX_POINTER_TTL_MS) {
      const scope = await catalogStore.currentSandboxScope();
      currentSandbox = scope ? { scope, at: Date.now() } : undefined;
    }
    content = currentSandbox?.scope ?? content ?? PROD;
  }
  return { content, inventory: inventoryKeys.sandbox(t.partnerId) };
}
