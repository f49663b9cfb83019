import type { RouteDef } from '../routes';
import type { ApiEvent } from './types';

/** Who is calling, resolved from the bearer key by the authentication middleware. */
export interface Principal {
  partnerId: string;
  memberId: string;
  keyId: string;
  env: 'live' | 'test';
  role: string;
  scopes: ReadonlySet<string>;
  rateLimitPerMinute: number;
  rateRemaining: number;
  /** Unix seconds when the rate-limit window resets. */
  rateReset: number;
  /** Plain secret from the Authorization header, kept in memory for signature checks only. */
  secret: string;
  partnerName: string;
  /** The sandbox catalog snapshot this tenant browses (test keys); unset until the first refresh. */
  sandboxCatalog?: string;
  memberEmail: string;
  keyCreatedAt: string;
}

export interface RequestState {
  requestId: string;
  route: RouteDef;
  startedAt: number;
  principal?: Principal;
  /** Headers added to every response of this request, errors included. */
  headers: Record<string, string>;
  /** Raw body exactly as received (decoded from base64 when needed). */
  rawBody: string;
  /** Validated Idempotency-Key of a write. */
  idempotencyKey?: string;
  /** Writes still in flight that must land before the response leaves (idempotency result). */
  pending: Promise<unknown>[];
}

const STATE = Symbol('requestState');
type WithState = { [STATE]?: RequestState };

export function setState(event: ApiEvent, state: RequestState) {
  (event as unknown as WithState)[STATE] = state;
}
export function getState(event: ApiEvent): RequestState {
  const s = (event as unknown as WithState)[STATE];
  if (!s) throw new Error('request state missing: httpContext middleware not installed');
  return s;
}
