import type { Env } from '../kernel/tenant';

/**
 * Invoice numbers. Live settlements share the service's one continuous series
 * (PTS-000001, PTS-000002, ...): tax law (CGI art. 145-III in Morocco, annexe
 * II art. 242 nonies A in France) asks the issuer for a single chronological
 * series without gaps. Each sandbox tenant has its own series with a visible
 * prefix (TEST-PTS-000001), so a partner's tests never see another's numbers.
 * A number is assigned only when a settlement is issued, in the same
 * transaction as the status change (store.issue): never skipped, never reused.
 */
export const formatNumber = (env: Env, seq: number): string => `${env === 'test' ? 'TEST-' : ''}PTS-${String(seq).padStart(6, '0')}`;
