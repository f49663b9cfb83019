import { beforeEach, describe, expect, it, vi } from 'vitest';

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
    counts.set('SNAP#empty', 0);
    pointer = 'SNAP#empty';
    expect((await catalogScopes(tenant('SNAP#empty'))).content).toBe('SNAP#empty');
    // The import publishes a snapshot with the catalog: no weekly refresh needed.
    counts.set('SNAP#full', 140);
    pointer = 'SNAP#full';
    const later = Date.now() + 5_100; // past the pointer's cache
    vi.spyOn(Date, 'now').mockReturnValue(later);
    expect((await catalogScopes(tenant('SNAP#empty'))).content).toBe('SNAP#full');
    vi.restoreAllMocks();
  });

  it('keeps its own clone when it holds the catalog, even once a newer snapshot exists', async () => {
    counts.set('SNAP#mine', 140);
    counts.set('SNAP#newer', 141);
    pointer = 'SNAP#newer';
    expect(await catalogScopes(tenant('SNAP#mine'))).toEqual({ content: 'SNAP#mine', inventory: 'SBX#p1' });
  });

  it('live keys see production', async () => {
    expect((await catalogScopes({ ...tenant('SNAP#mine'), env: 'live' })).content).toBe('PROD');
  });
});
