import * as z from 'zod';
import { accessPartitions } from '../access/keys';
import { pub } from '../http/data-class';
import { defineRoutes } from '../http/route-def';
import { EmptyBody, pageQuery } from '../http/schemas';
import { platformPartitions } from '../platform/keys';
import { AuditEventPage, GuideParams, Health, Me, SignedOut } from './schemas';

/** Meta: service health, this document, the calling key, and the audit trail of writes. */
export const metaRoutes = defineRoutes({
  getHealth: {
    method: 'GET',
    path: '/v1/health',
    handler: 'functions/meta/health.ts',
    access: 'public',
    tag: 'Meta',
    summary: 'Service health',
    description:
      'Public and unmetered: no key, no rate-limit headers. For load balancers and uptime checks; any query string (a cache-busting parameter) is ignored.',
    ignoresQuery: true,
    // It refuses no parameter: its one 4xx is the gateway's, for a request that is not HTTP/1.1.
    errors: ['request.malformed'],
    responses: { 200: { description: 'The service is up.', schema: Health } },
  },
  getOpenApi: {
    method: 'GET',
    path: '/v1/openapi.json',
    handler: 'functions/meta/openapi.ts',
    access: 'public',
    tag: 'Meta',
    summary: 'This OpenAPI 3.1 document',
    description:
      'Public. Generated from the route table and its schemas; generated clients (openapi-typescript, openapi-fetch) build from it, and the SDK is generated from it.',
    examples: { response: { openapi: '3.1.0', info: { title: 'Partner travel booking service', version: '1.0.0' }, paths: {} } },
    responses: { 200: { description: 'The OpenAPI document of the API.', schema: pub(z.record(z.string(), z.unknown())) } },
  },
  getDocs: {
    method: 'GET',
    path: '/v1/docs',
    handler: 'functions/meta/docs.ts',
    access: 'public',
    tag: 'Meta',
    summary: 'This API reference as one self-contained HTML page',
    description: 'Built from this OpenAPI document at build time; it loads nothing from any other origin.',
    responses: { 200: { description: 'The reference page.', schema: pub(z.string()), contentType: 'text/html; charset=utf-8' } },
    referencePage: true,
  },
  getGuideIndex: {
    method: 'GET',
    path: '/v1/docs/guides',
    handler: 'functions/meta/guide-index.ts',
    access: 'public',
    tag: 'Meta',
    summary: 'The partner guides: their index as a self-contained HTML page',
    description:
      'Rendered from the guides in Markdown at build time, beside the reference; each page lists every guide, has no script and loads nothing from any other origin.',
    responses: { 200: { description: 'The index of the guides.', schema: pub(z.string()), contentType: 'text/html; charset=utf-8' } },
    guidePages: true,
  },
  getGuide: {
    method: 'GET',
    path: '/v1/docs/guides/{name}',
    handler: 'functions/meta/guide.ts',
    access: 'public',
    tag: 'Meta',
    summary: 'One partner guide as a self-contained HTML page',
    description: 'Rendered from Markdown at build time; the reference links each tag to its guides. 404 resource.not_found for a guide that does not exist.',
    request: { params: GuideParams },
    responses: { 200: { description: 'The guide.', schema: pub(z.string()), contentType: 'text/html; charset=utf-8' } },
    guidePages: true,
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
  signOut: {
    method: 'POST',
    path: '/v1/me/sign-out',
    handler: 'functions/meta/sign-out.ts',
    access: 'key',
    scope: 'meta:read',
    tag: 'Meta',
    summary: "End every console session of the calling member (the console's sign-out)",
    description:
      "Every console access token of the calling member signed in until now answers 401 auth.session.invalid from the next request on, in both environments (Cognito's GlobalSignOut ends only the refresh tokens: an access token stays valid until it expires). The member signs in again to get a new session. With a live API key (signed, as every live write), it signs the key's member out of the console; the key keeps working. A sandbox key is refused with 403 auth.environment.live_required: the sessions it would end act in production too, and a sandbox key never changes production. A console session may call it from either environment, and needs no recent sign-in for it.",
    request: { body: EmptyBody },
    responses: { 200: { description: 'The sessions are ended.', schema: SignedOut } },
    endsSessions: true,
    liveKeysOnly: 'Signing out ends console sessions, which act in production too: a sandbox key may not.',
    // Its member's item: sessions_revoked_at.
    dynamo: { access: { UpdateItem: [accessPartitions.partner] } },
  },
  listAuditEvents: {
    method: 'GET',
    path: '/v1/audit-events',
    handler: 'functions/audit/list.ts',
    access: 'key',
    scope: 'audit:read',
    tag: 'Meta',
    summary: 'Audit trail of the writes made with your keys in this environment',
    description:
      'Every write made with your keys in the environment of the calling key: time, member, key id, method, path, status, request id, and whether it was an idempotent replay. Never bodies. Keyset-paged.',
    request: { query: pageQuery },
    responses: { 200: { description: 'Audit events, most recent first.', schema: AuditEventPage } },
    dynamo: { access: { Query: [platformPartitions.audit] } },
  },
});
