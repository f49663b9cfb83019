import type { z } from 'zod';
import { Health } from './schemas/common';

/**
 * The route table: the one source of truth for the CDK API Gateway routes, the
 * local runtime's router and the OpenAPI document. A handler entry is a file
 * under functions/ exporting `handler`.
 */
export const SCOPES = [
  'meta:read',
  'catalog:read',
  'quotes:read',
  'quotes:write',
  'bookings:read',
  'bookings:write',
  'settlements:read',
  'webhooks:read',
  'webhooks:write',
  'reviews:read',
  'reviews:write',
  'files:write',
  'team:read',
  'team:manage',
  'audit:read',
] as const;
export type Scope = (typeof SCOPES)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const WRITE_METHODS: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface ResponseDef {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentType?: string;
}

export interface RouteSpec {
  method: HttpMethod;
  path: string;
  /** Handler entry, relative to the repository root. */
  handler: string;
  /** `public` routes need no key; `key` routes need a bearer key with `scope`. */
  access: 'public' | 'key';
  scope?: Scope;
  tag: string;
  summary: string;
  description?: string;
  request?: { params?: z.ZodObject; query?: z.ZodObject; body?: z.ZodType };
  responses: Record<number, ResponseDef>;
  /** RFC 8594: the route answers with Deprecation and Sunset headers. */
  deprecated?: { since: string; sunset: string };
}

export interface RouteDef extends RouteSpec {
  id: string;
  /** Derived from the method: writes need Idempotency-Key, and signatures in live. */
  write: boolean;
}

function defineRoutes<T extends Record<string, RouteSpec>>(specs: T): { [K in keyof T]: T[K] & RouteDef } {
  const out = {} as Record<string, RouteDef>;
  for (const [id, spec] of Object.entries(specs)) {
    if (spec.access === 'key' && !spec.scope) throw new Error(`route ${id} is keyed but has no scope`);
    out[id] = { ...spec, id, write: WRITE_METHODS.has(spec.method) };
  }
  return out as { [K in keyof T]: T[K] & RouteDef };
}

export const ROUTES = defineRoutes({
  getHealth: {
    method: 'GET',
    path: '/v1/health',
    handler: 'functions/meta/health.ts',
    access: 'public',
    tag: 'Meta',
    summary: 'Service health',
    responses: { 200: { description: 'The service is up.', schema: Health } },
  },
});

export type RouteId = keyof typeof ROUTES;
export const ROUTE_LIST: RouteDef[] = Object.values(ROUTES);
