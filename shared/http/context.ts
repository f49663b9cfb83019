import type { Context } from 'aws-lambda';
import type { Tenant } from '../kernel/tenant';
import type { Claim, IdempotencyScope } from '../platform/idempotency';
import type { SignatureRecord } from '../platform/signature-replay';
import type { RouteDef } from './route-def';
import type { ApiResult } from './types';

/** Who is calling, resolved from the bearer key by the platform middleware. Never carries the key's secret. */
export interface Principal extends Tenant {
  /** How the caller authenticated: an API key, or a console session (a Cognito token of a member). */
  via: 'api_key' | 'console';
  /** The key's id; null for a console session. */
  keyId: string | null;
  keyCreatedAt: string | null;
  /** A console session's sign-in time (Unix seconds): live writes need a recent one. */
  authTime?: number;
  /** A console session's sign-in id (origin_jti): its sign-out revokes it, whatever the second. */
  sessionId?: string;
  scopes: ReadonlySet<string>;
  rateLimitPerMinute: number;
  rateRemaining: number;
  /** Unix seconds when the rate-limit window resets. */
  rateReset: number;
  partnerName: string;
  memberEmail: string;
}

/** The plain tenant context the domain acts for. */
export function tenantOf(p: Principal): Tenant {
  return {
    partnerId: p.partnerId,
    env: p.env,
    memberId: p.memberId,
    role: p.role,
    ...(p.sandboxCatalog ? { sandboxCatalog: p.sandboxCatalog } : {}),
    ...(p.clockOffsetMs ? { clockOffsetMs: p.clockOffsetMs } : {}),
  };
}

/**
 * A write's Idempotency-Key claimed in the authentication's own stage, and a version 1 live signature recorded
 * beside it: `state.early` (shared/http/early-claim.ts; docs/performance.md, "The stages of each write").
 */
export interface EarlyClaim {
  scope: IdempotencyScope;
  fingerprint: string;
  claim: Promise<Claim>;
  /** A version 1 signature that the presented secret makes, recorded as accepted once. */
  signature?: { keyId: string; value: string; recorded: Promise<SignatureRecord> };
  /** Taken by runIdempotent (which completes or releases it), or given back by giveBackEarly. */
  settled: boolean;
}

export interface ParsedInput {
  params: unknown;
  query: unknown;
  body: unknown;
}

/** Per-request state, shared by the route's middlewares through the typed context. */
export interface RequestState {
  requestId: string;
  route: RouteDef;
  startedAt: number;
  /** The request path as received (the audit line's path). */
  path: string;
  principal?: Principal;
  /** Headers added to every response of this request, errors included. */
  headers: Record<string, string>;
  /** The body bytes exactly as received (decoded from base64 when API Gateway encoded them). */
  bodyBytes: Buffer;
  /** Validated Idempotency-Key of a write. */
  idempotencyKey?: string;
  /** A live write's signature, being recorded as accepted once (false: already accepted under another key); awaited with the key's claim. */
  signatureAccepted?: Promise<boolean>;
  /** Path, query and body after validation. */
  input?: ParsedInput;
  /** Writes still in flight that must land before the response leaves (idempotency result). */
  pending: Promise<unknown>[];
  /** A write's Idempotency-Key claimed beside its authentication reads, until runIdempotent takes it or a refusal gives it back. */
  early?: EarlyClaim;
  /** The claimed Idempotency-Key of a write, while its operation runs. */
  idempotency?: { scope: IdempotencyScope; token: string };
  /** The response the operation's own transaction stored as the key's outcome. */
  sealed?: ApiResult;
  /** The write's audit line committed in the operation's own transaction. */
  audited?: boolean;
}

export function stateOf(context: RouteContext): RequestState {
  if (!context.http) throw new Error('request state missing: the httpContext middleware is not installed');
  return context.http;
}

/**
 * The Lambda context as the route's middlewares extend it: the per-request
 * state travels here, typed, from the first middleware to the handler.
 */
export type RouteContext = Context & { http?: RequestState };
