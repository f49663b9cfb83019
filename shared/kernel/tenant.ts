/** live = production (sk_live_ keys), test = sandbox (sk_test_ keys). */
export type Env = 'live' | 'test';
export const ENVS = ['live', 'test'] as const;

/**
 * Who a domain operation acts for: the caller's partner and environment and
 * the console member behind the key. Everything the service keeps is scoped
 * to (partnerId, env). The domain never sees the HTTP principal or its key.
 */
export interface Tenant {
  partnerId: string;
  env: Env;
  memberId: string;
  role: string;
  /** The sandbox catalog snapshot this tenant browses (sandbox only; unset: the current one). */
  sandboxCatalog?: string;
  /**
   * The sandbox clock's lead on real time, in milliseconds, as read when the request was authenticated (sandbox
   * only; unset: none). Every rule that reads the time reads `tenantNow(t)` (shared/kernel/clock.ts).
   */
  clockOffsetMs?: number;
}

/** The tenant an operator command acts for: no console member behind it. */
export const operatorTenant = (partnerId: string, env: Env): Tenant => ({ partnerId, env, memberId: 'operator', role: 'OPERATOR' });
