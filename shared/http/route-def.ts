import type { z } from 'zod';
import type { Scope } from '../access/scopes';
import type { BucketAccess } from '../buckets';
import type { DynamoUse } from '../db/grants';
import type { ErrorCode } from '../kernel/errors';

/**
 * The shape of a route-table entry. Each feature declares its routes in its
 * own `routes.ts` with `defineRoutes`; `shared/routes.ts` merges them into
 * the one table that drives the CDK API Gateway routes, the local runtime's
 * router and the OpenAPI document. A handler imports only its feature's table.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const WRITE_METHODS: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What a route may do to console users in the user pool (cognito-idp actions). */
export type IdentityAction =
  | 'AdminGetUser'
  | 'AdminCreateUser'
  | 'AdminDisableUser'
  | 'AdminEnableUser'
  | 'AdminDeleteUser'
  | 'AdminUserGlobalSignOut'
  | 'AdminSetUserPassword';

export interface ResponseDef {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentType?: string;
  /** Headers of this response beyond the platform's, by name: their description (string values). */
  headers?: Record<string, string>;
}

export interface RouteSpec {
  method: HttpMethod;
  path: string;
  /** Handler entry, relative to the repository root (a file under functions/ exporting `handler`). */
  handler: string;
  /** `public` routes need no key; `key` routes need a bearer key with `scope`. */
  access: 'public' | 'key';
  scope?: Scope;
  tag: string;
  summary: string;
  description?: string;
  request?: { params?: z.ZodObject; query?: z.ZodObject; body?: z.ZodType };
  /**
   * The operation's own error codes (beyond the platform's: validation, auth, scope, idempotency, pagination,
   * rate limit), each documented under its status in the OpenAPI document and typed in the SDK.
   */
  errors?: ErrorCode[];
  /** Example bodies for the OpenAPI document; where absent, examples are derived from the schemas. */
  examples?: { request?: unknown; response?: unknown };
  /** The success responses; a handler answers the lowest status unless it names another. */
  responses: Record<number, ResponseDef>;
  /** RFC 8594: the route answers with Deprecation and Sunset headers. */
  deprecated?: { since: string; sunset: string };
  /** Top-level response fields shown once: never stored for idempotent replays (replayed as null). */
  secretFields?: string[];
  /**
   * The change reaches production whatever the key (team roles): a sandbox key
   * is refused with 403 auth.environment.live_required. The text says why.
   */
  liveOnly?: string;
  /**
   * The change reaches production when an API key makes it (ending console sessions, which act in both
   * environments): a sandbox key is refused with 403 auth.environment.live_required, as for `liveOnly`; a console
   * session, the member's own sign-in for both environments, may make it from either. The text says why.
   */
  liveKeysOnly?: string;
  /** The route sends e-mail (SES in AWS). */
  sendsMail?: boolean;
  /**
   * A write that acts outside the transaction committing its answer (an outbound call, an e-mail, a write
   * of its own), so a rerun would act again: the text says what. Its transient failures (5xx, contention)
   * are then stored under the Idempotency-Key like its other outcomes, not released for a rerun (runIdempotent).
   */
  effectsOutsideCommit?: string;
  /** The write only ends console sessions: a console session may make it without a recent sign-in, live included. */
  endsSessions?: boolean;
  /** What the route does to console users in the Cognito user pool: the CDK grants exactly these actions on the pool. */
  usesIdentity?: IdentityAction[];
  /**
   * What the route's code does to each table beyond the request pipeline's records (shared/platform/grants.ts):
   * per item action, the partitions it reaches as dynamodb:LeadingKeys patterns, and the indexes it queries. The
   * CDK grants exactly that; the local IAM layer refuses anything else, and an integration run fails on a grant
   * the run never used (infra/local/iam/report.ts). docs/operations/permissions.md says how to change it.
   */
  dynamo?: DynamoUse;
  /**
   * Grants the integration tests may leave unused, each with the path that needs them (an error path, a race):
   * by the line the least-privilege report shows, e.g. `dynamodb:DeleteItem on table data for UNAV#*`.
   */
  untested?: Record<string, string>;
  /** Queues of QUEUES (shared/queues.ts) the route sends to, besides the webhook queue of `publishesEvents`. */
  sendsTo?: string[];
  /** The route records events or queues deliveries: it may send to the webhook queue. */
  publishesEvents?: boolean;
  /** A query string is ignored, not refused (the health check: uptime monitors add cache-busting parameters). */
  ignoresQuery?: true;
  /** Lambda timeout when the default (FUNCTION_TIMEOUT_SECONDS) is too short, e.g. an outbound HTTP call. */
  timeoutSeconds?: number;
  /**
   * Sandbox only (test helpers): a live key gets 404 request.route.not_found,
   * as if the route did not exist, before any other check of the route.
   */
  sandboxOnly?: boolean;
  /** Buckets of shared/buckets.ts the route reads or writes (the CDK grants exactly that). */
  buckets?: Record<string, BucketAccess>;
  /** The route answers with review photo URLs: it gets the CDN's base URL (PHOTO_BASE_URL). */
  photoUrls?: boolean;
  /** The route serves the API reference page: its bundle carries the page, built from the OpenAPI document. */
  referencePage?: boolean;
  /** The route serves the partner guides: its bundle carries them, rendered from docs/guides (infra/guides.ts). */
  guidePages?: boolean;
  /** The route issues invoices: its bundle carries the fonts, its environment the issuer's identity (infra/issuer.ts). */
  rendersPdf?: boolean;
}

export interface RouteDef extends RouteSpec {
  id: string;
  /** Derived from the method: writes need Idempotency-Key, and signatures in live. */
  write: boolean;
}

/** Each entry keeps its literal types (its response schemas type the handler's result) and gains `id` and `write`. */
export type Routes<T extends Record<string, RouteSpec>> = { [K in keyof T]: Omit<RouteDef, keyof T[K]> & T[K] };

export function defineRoutes<T extends Record<string, RouteSpec>>(specs: T): Routes<T> {
  const out = {} as Record<string, RouteDef>;
  for (const [id, spec] of Object.entries(specs)) {
    if (spec.access === 'key' && !spec.scope) throw new Error(`route ${id} is keyed but has no scope`);
    if (spec.deprecated && Date.parse(spec.deprecated.sunset) < Date.parse(spec.deprecated.since) + 182 * 86_400_000) {
      throw new Error(`route ${id}: removals are announced 6 months ahead (sunset must be at least 182 days after since)`);
    }
    out[id] = { ...spec, id, write: WRITE_METHODS.has(spec.method) };
  }
  return out as unknown as Routes<T>;
}

/** The status a route answers by default: the lowest it declares. */
export const successStatus = (def: RouteDef): number => Number(Object.keys(def.responses)[0] ?? 200);

/** A function's timeout when it sets none (infra/constructs/service-function.ts): a route's, unless `timeoutSeconds` says otherwise. */
export const FUNCTION_TIMEOUT_SECONDS = 10;

/** The timeout of the route's function, as the CDK sets it. */
export const routeTimeoutMs = (def: Pick<RouteDef, 'timeoutSeconds'>) => (def.timeoutSeconds ?? FUNCTION_TIMEOUT_SECONDS) * 1000;
