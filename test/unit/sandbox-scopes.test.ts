import { beforeEach, describe, expect, it, vi } from 'vitest';
import { inventoryKeys } from '../../shared/catalog/keys';

/** The catalog store as the scopes read it: each snapshot's adventure count, and the current sandbox pointer. */
const counts = new Map<string, number>();
let pointer: string | undefined;
vi.mock('../../shared/catalog/store', () => ({
  catalogStore: {
    meta: async (scope: string) => (counts.has(scope) ? { adventure_count: counts.get(scope) } : undefined),
    currentSandboxScope: async () => pointer,
  },
}));

const { catalogScopes } = await import('../../shared/catalog/scopes');
const tenant = (sandboxCatalog?: string) => ({ partnerId: 'p1', env: 'test' as const, memberId: 'm1', role: 'PARTNER_ADMIN', sandboxCatalog });

beforeEach(() => {
  counts.clear();
  pointer = undefined;
});

describe('the sandbox catalog of a tenant', () => {
  it('created while production was empty (its clone holds nothing): follows the current snapshot once one holds the catalog', async () => {
    counts.set('snapshot-empty', 0);
    pointer = 'snapshot-empty';
    expect((await catalogScopes(tenant('snapshot-empty'))).content).toBe('snapshot-empty');
    // The import publishes a snapshot with the catalog: no weekly refresh needed.
    counts.set('snapshot-full', 140);
    pointer = 'snapshot-full';
    const later = Date.now() + 5_100; // past the pointer's cache
    vi.spyOn(Date, 'now').mockReturnValue(later);
    expect((await catalogScopes(tenant('snapshot-empty'))).content).toBe('snapshot-full');
    vi.restoreAllMocks();
  });

  it('keeps its own clone when it holds the catalog, even once a newer snapshot exists', async () => {
    counts.set('snapshot-mine', 140);
    counts.set('snapshot-newer', 141);
    pointer = 'snapshot-newer';
    expect(await catalogScopes(tenant('snapshot-mine'))).toEqual({ content: 'snapshot-mine', inventory: inventoryKeys.sandbox('p1') });
  });

  it('live keys see production', async () => {
    expect((await catalogScopes({ ...tenant('snapshot-mine'), env: 'live' })).content).toBe('PROD');
  });
});
