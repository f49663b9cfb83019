import { z } from 'zod';
import { Health } from './schemas/common';
import { pageQuery } from './schemas/pagination';
import { Booking, BookingListQuery, BookingNumberParams, BookingPage, CancelBookingBody, CancellationQuote, CreateBookingBody } from './schemas/bookings';
import { CreateWebhookBody, DeletedWebhook, DeliveryListQuery, DeliveryPage, UpdateWebhookBody, WebhookDelivery, WebhookEndpoint, WebhookEndpointWithSecret, WebhookIdParams, WebhookList, WebhookTestResult } from './schemas/webhooks';
import { AdventureDetail, AdventureListQuery, AdventurePage, Availability, AvailabilityQuery, CreateQuoteBody, Quote, QuoteIdParams, QuotePage, SlugParams } from './schemas/catalog';
import {
  ApiKey,
  ApiKeyPage,
  ApiKeyWithSecret,
  AuditEventPage,
  CreateApiKeyBody,
  KeyIdParams,
  Me,
  TeamMember,
  TeamMemberList,
  UpdateRoleBody,
  UserIdParams,
} from './schemas/platform';

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
  'keys:manage',
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
  /** Top-level response fields shown once: never stored for idempotent replays (replayed as null). */
  secretFields?: string[];
  /** The route changes partners, members or keys; other keyed routes write only platform records to the access table. */
  changesAccess?: boolean;
  /** The route sends e-mail (SES in AWS). */
  sendsMail?: boolean;
  /** The route records events or queues deliveries: it may send to the webhook queue. */
  publishesEvents?: boolean;
  /** Lambda timeout when the default (10 s) is too short, e.g. an outbound HTTP call. */
  timeoutSeconds?: number;
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
    if (spec.deprecated && Date.parse(spec.deprecated.sunset) < Date.parse(spec.deprecated.since) + 182 * 86_400_000) {
      throw new Error(`route ${id}: removals are announced 6 months ahead (sunset must be at least 182 days after since)`);
    }
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
  getOpenApi: {
    method: 'GET',
    path: '/v1/openapi.json',
    handler: 'functions/meta/openapi.ts',
    access: 'public',
    tag: 'Meta',
    summary: 'This OpenAPI 3.1 document',
    responses: { 200: { description: 'The OpenAPI document of the API.', schema: z.record(z.string(), z.unknown()) } },
  },
  getMe: {
    method: 'GET',
    path: '/v1/me',
    handler: 'functions/meta/me.ts',
    access: 'key',
    scope: 'meta:read',
    tag: 'Meta',
    summary: 'Metadata of the current key',
    description: 'Partner, environment, key, member, role, scopes and rate limit of the key making the request.',
    responses: { 200: { description: 'The current key.', schema: Me } },
  },
  listTeamMembers: {
    method: 'GET',
    path: '/v1/team/members',
    handler: 'functions/team/list-members.ts',
    access: 'key',
    scope: 'team:read',
    tag: 'Team',
    summary: 'List the console members of your partner',
    responses: { 200: { description: 'The members; is_you marks the caller.', schema: TeamMemberList } },
  },
  updateTeamMemberRole: {
    method: 'PATCH',
    path: '/v1/team/members/{user_id}/role',
    handler: 'functions/team/update-role.ts',
    access: 'key',
    scope: 'team:manage',
    tag: 'Team',
    summary: "Change a member's role",
    description: 'Refused for your own role (403 team.role.self_change) and when it would leave no PARTNER_ADMIN (409 team.role.last_admin).',
    request: { params: UserIdParams, body: UpdateRoleBody },
    responses: { 200: { description: 'Role updated.', schema: TeamMember } },
    changesAccess: true,
  },
  listApiKeys: {
    method: 'GET',
    path: '/v1/api-keys',
    handler: 'functions/keys/list.ts',
    access: 'key',
    scope: 'keys:manage',
    tag: 'Team',
    summary: 'List the API keys of this environment',
    request: { query: pageQuery },
    responses: { 200: { description: 'Keys, most recent first; secrets are never shown.', schema: ApiKeyPage } },
  },
  createApiKey: {
    method: 'POST',
    path: '/v1/api-keys',
    handler: 'functions/keys/create.ts',
    access: 'key',
    scope: 'keys:manage',
    tag: 'Team',
    summary: 'Issue an API key for a member, in the environment of the calling key',
    request: { body: CreateApiKeyBody },
    responses: { 201: { description: 'The key; `key` is shown only here (an idempotent replay returns it as null).', schema: ApiKeyWithSecret } },
    secretFields: ['key'],
    changesAccess: true,
  },
  revokeApiKey: {
    method: 'DELETE',
    path: '/v1/api-keys/{key_id}',
    handler: 'functions/keys/revoke.ts',
    access: 'key',
    scope: 'keys:manage',
    tag: 'Team',
    summary: 'Revoke an API key; it stops working at once',
    request: { params: KeyIdParams },
    responses: { 200: { description: 'The revoked key.', schema: ApiKey } },
    changesAccess: true,
  },
  listAdventures: {
    method: 'GET',
    path: '/v1/adventures',
    handler: 'functions/catalog/list.ts',
    access: 'key',
    scope: 'catalog:read',
    tag: 'Catalog',
    summary: 'Browse the catalog',
    description: 'Offset-based paging (meta.total_results, meta.page_number); sort by popularity, price or distance; filter by text, city, category, date and price.',
    request: { query: AdventureListQuery },
    responses: { 200: { description: 'A page of adventures.', schema: AdventurePage } },
  },
  getAdventure: {
    method: 'GET',
    path: '/v1/adventures/{slug}',
    handler: 'functions/catalog/get.ts',
    access: 'key',
    scope: 'catalog:read',
    tag: 'Catalog',
    summary: 'One adventure with its rate packs',
    request: { params: SlugParams },
    responses: { 200: { description: 'The adventure.', schema: AdventureDetail } },
  },
  getAvailability: {
    method: 'GET',
    path: '/v1/adventures/{slug}/availability',
    handler: 'functions/catalog/availability.ts',
    access: 'key',
    scope: 'catalog:read',
    tag: 'Catalog',
    summary: 'Bookable slots with seats left',
    description: 'Departures for SCHEDULED packs, days for FLEXIBLE packs, between two dates.',
    request: { params: SlugParams, query: AvailabilityQuery },
    responses: { 200: { description: 'The bookable slots.', schema: Availability } },
  },
  createQuote: {
    method: 'POST',
    path: '/v1/quotes',
    handler: 'functions/quotes/create.ts',
    access: 'key',
    scope: 'quotes:write',
    tag: 'Quotes',
    summary: 'Price a party for a slot and lock the price for 30 minutes',
    request: { body: CreateQuoteBody },
    responses: { 201: { description: 'The quote.', schema: Quote } },
  },
  listQuotes: {
    method: 'GET',
    path: '/v1/quotes',
    handler: 'functions/quotes/list.ts',
    access: 'key',
    scope: 'quotes:read',
    tag: 'Quotes',
    summary: 'Your quotes, most recent first',
    request: { query: pageQuery },
    responses: { 200: { description: 'A page of quotes.', schema: QuotePage } },
  },
  getQuote: {
    method: 'GET',
    path: '/v1/quotes/{id}',
    handler: 'functions/quotes/get.ts',
    access: 'key',
    scope: 'quotes:read',
    tag: 'Quotes',
    summary: 'One quote',
    request: { params: QuoteIdParams },
    responses: { 200: { description: 'The quote; expired is computed now.', schema: Quote } },
  },
  createBooking: {
    method: 'POST',
    path: '/v1/bookings',
    handler: 'functions/bookings/create.ts',
    access: 'key',
    scope: 'bookings:write',
    tag: 'Bookings',
    summary: "Book a quote with the bank's signed payment confirmation",
    description: 'Status goes straight to CONFIRMED and booking.confirmed is emitted. 409 on conflicts (quote expired or already booked, duplicate partner_reference), 422 when the slot is no longer bookable.',
    request: { body: CreateBookingBody },
    responses: { 201: { description: 'The booking.', schema: Booking } },
    sendsMail: true,
    publishesEvents: true,
  },
  listBookings: {
    method: 'GET',
    path: '/v1/bookings',
    handler: 'functions/bookings/list.ts',
    access: 'key',
    scope: 'bookings:read',
    tag: 'Bookings',
    summary: 'Your bookings, most recent first',
    request: { query: BookingListQuery },
    responses: { 200: { description: 'A page of bookings; traveler names as initials.', schema: BookingPage } },
  },
  getBooking: {
    method: 'GET',
    path: '/v1/bookings/{booking_number}',
    handler: 'functions/bookings/get.ts',
    access: 'key',
    scope: 'bookings:read',
    tag: 'Bookings',
    summary: 'One booking with full traveler details',
    request: { params: BookingNumberParams },
    responses: { 200: { description: 'The booking.', schema: Booking } },
  },
  getCancellationQuote: {
    method: 'GET',
    path: '/v1/bookings/{booking_number}/cancellation-quote',
    handler: 'functions/bookings/cancellation-quote.ts',
    access: 'key',
    scope: 'bookings:read',
    tag: 'Bookings',
    summary: 'Refund preview before cancelling',
    request: { params: BookingNumberParams },
    responses: { 200: { description: 'Fees, refundable amount and the policy rule applied, valid until valid_until.', schema: CancellationQuote } },
  },
  cancelBooking: {
    method: 'POST',
    path: '/v1/bookings/{booking_number}/cancel',
    handler: 'functions/bookings/cancel.ts',
    access: 'key',
    scope: 'bookings:write',
    tag: 'Bookings',
    summary: 'Cancel a booking',
    description: 'Releases the seats, records the refund of the policy and emits booking.cancelled; 409 booking.not_cancellable when CANCELLED or COMPLETED.',
    request: { params: BookingNumberParams, body: CancelBookingBody },
    responses: { 200: { description: 'The cancelled booking with its cancellation details.', schema: Booking } },
    sendsMail: true,
    publishesEvents: true,
  },
  createWebhook: {
    method: 'POST',
    path: '/v1/webhooks',
    handler: 'functions/webhooks/create.ts',
    access: 'key',
    scope: 'webhooks:write',
    tag: 'Webhooks',
    summary: 'Register an endpoint; the signing secret is shown only here',
    request: { body: CreateWebhookBody },
    responses: { 201: { description: 'The endpoint with its signing_secret.', schema: WebhookEndpointWithSecret } },
    secretFields: ['signing_secret'],
  },
  listWebhooks: {
    method: 'GET',
    path: '/v1/webhooks',
    handler: 'functions/webhooks/list.ts',
    access: 'key',
    scope: 'webhooks:read',
    tag: 'Webhooks',
    summary: 'Your endpoints in this environment (at most 16)',
    responses: { 200: { description: 'The endpoints, without secrets.', schema: WebhookList } },
  },
  listWebhookDeliveries: {
    method: 'GET',
    path: '/v1/webhooks/deliveries',
    handler: 'functions/webhooks/deliveries.ts',
    access: 'key',
    scope: 'webhooks:read',
    tag: 'Webhooks',
    summary: 'Delivery log, most recent first (by created_at)',
    request: { query: DeliveryListQuery },
    responses: { 200: { description: 'A page of deliveries.', schema: DeliveryPage } },
  },
  replayWebhookDelivery: {
    method: 'POST',
    path: '/v1/webhooks/deliveries/{id}/replay',
    handler: 'functions/webhooks/replay.ts',
    access: 'key',
    scope: 'webhooks:write',
    tag: 'Webhooks',
    summary: 'Re-drive one delivery: the same event, new delivery ids, attempted now',
    request: { params: WebhookIdParams },
    responses: { 202: { description: 'The new delivery (replay_of names the original).', schema: WebhookDelivery } },
    publishesEvents: true,
  },
  getWebhook: {
    method: 'GET',
    path: '/v1/webhooks/{id}',
    handler: 'functions/webhooks/get.ts',
    access: 'key',
    scope: 'webhooks:read',
    tag: 'Webhooks',
    summary: 'One endpoint (never its secret)',
    request: { params: WebhookIdParams },
    responses: { 200: { description: 'The endpoint.', schema: WebhookEndpoint } },
  },
  updateWebhook: {
    method: 'PATCH',
    path: '/v1/webhooks/{id}',
    handler: 'functions/webhooks/update.ts',
    access: 'key',
    scope: 'webhooks:write',
    tag: 'Webhooks',
    summary: 'Change the URL, event types, status (ACTIVE/DISABLED) or description',
    request: { params: WebhookIdParams, body: UpdateWebhookBody },
    responses: { 200: { description: 'The endpoint.', schema: WebhookEndpoint } },
  },
  deleteWebhook: {
    method: 'DELETE',
    path: '/v1/webhooks/{id}',
    handler: 'functions/webhooks/delete.ts',
    access: 'key',
    scope: 'webhooks:write',
    tag: 'Webhooks',
    summary: 'Delete an endpoint; pending deliveries to it fail',
    request: { params: WebhookIdParams },
    responses: { 200: { description: 'Deleted.', schema: DeletedWebhook } },
  },
  testWebhook: {
    method: 'POST',
    path: '/v1/webhooks/{id}/test',
    handler: 'functions/webhooks/test.ts',
    access: 'key',
    scope: 'webhooks:write',
    tag: 'Webhooks',
    summary: 'Send a synthetic signed event (test: true) now',
    description: 'The endpoint has 8 seconds to answer.',
    request: { params: WebhookIdParams },
    timeoutSeconds: 20,
    responses: { 200: { description: 'What the endpoint answered and how fast.', schema: WebhookTestResult } },
  },
  listAuditEvents: {
    method: 'GET',
    path: '/v1/audit-events',
    handler: 'functions/audit/list.ts',
    access: 'key',
    scope: 'audit:read',
    tag: 'Meta',
    summary: 'Audit trail of the writes made with your keys in this environment',
    request: { query: pageQuery },
    responses: { 200: { description: 'Audit events, most recent first.', schema: AuditEventPage } },
  },
});

export type RouteId = keyof typeof ROUTES;
export const ROUTE_LIST: RouteDef[] = Object.values(ROUTES);
