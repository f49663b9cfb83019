import { accessPartitions } from '../access/keys';
import { defineRoutes } from '../http/route-def';
import { requestLogPartitions } from './keys';
import { RequestLogEntry, RequestLogPage, RequestLogParams, RequestLogQuery } from './schemas';

// A live booking whose body was signed compact and sent pretty-printed: what the entry shows of it.
const signatureFailure = {
  request_id: 'c3b1f0a2-7d4e-4f6a-9b8c-2e5d1a0f9c47',
  occurred_at: '2026-11-24T09:14:03.512Z',
  environment: 'live',
  method: 'POST',
  path: '/v1/bookings',
  query: null,
  status: 401,
  error_code: 'auth.signature.invalid',
  latency_ms: 18,
  idempotency_key: 'sha256:ca39e0b2028bf37851a1ace590bac26ae0c19b7aca717a617a9f737c930ea549',
  idempotent_replayed: false,
  replay_of: null,
  via: 'api_key',
  key_id: 'k3m9q2x7w4p1',
  member_id: '8a4f2c1e-6b3d-4e9a-b7c5-1d2e3f4a5b6c',
  key_name: 'payments-prod-eu1',
  member_email: 'amina@example.com',
  source_ip: '198.51.100.24',
  user_agent: 'partner-travel-sdk/1.4.0 node/22.11.0',
  signature: {
    signature_version: 2,
    timestamp: '1795856043',
    method: 'POST',
    path: '/v1/bookings',
    idempotency_key: '[personal 36 bytes sha256:ca39e0b2]',
    body_length: 577,
    body_sha256: 'db9cb0450e902ba3bd696d6f47d79690431bf30bcf50c6d4f3ce5c34dad647b2',
    string_to_sign: 'v2\n1795856043\nPOST\n/v1/bookings\n[personal 36 bytes sha256:ca39e0b2]\ndb9cb0450e902ba3bd696d6f47d79690431bf30bcf50c6d4f3ce5c34dad647b2',
  },
  request_body: {
    content:
      '{"quote_id":"0b8e6f4a-2c1d-4e3f-9a8b-7c6d5e4f3a2b","partner_reference":"[personal 16 bytes sha256:cb17146b]","customer_reference":"[personal 10 bytes sha256:03c40fb5]","contact":{"first_name":"[personal 5 bytes sha256:7efe9a72]","last_name":"[personal 10 bytes sha256:1f66c778]","email":"[personal 27 bytes sha256:d7f42d3c]","phone":"[personal 16 bytes sha256:5f232d56]"},"travelers":[{"first_name":"[personal 5 bytes sha256:7efe9a72]","last_name":"[personal 10 bytes sha256:1f66c778]"},{"first_name":"[personal 7 bytes sha256:df881eee]","last_name":"[personal 10 bytes sha256:1f66c778]"}],"payment_confirmation":"[secret 85 bytes sha256:c83aeb8b]"}',
    content_form: 'reserialized_redacted',
    bytes: 577,
    sha256: 'db9cb0450e902ba3bd696d6f47d79690431bf30bcf50c6d4f3ce5c34dad647b2',
    truncated: false,
  },
  response_body: {
    content:
      '{"code":"auth.signature.invalid","message":"X-Signature does not match: the service signed, as version 2 (X-Signature-Version), HMAC-SHA256(secret, \\"v2\\" LF timestamp LF METHOD LF path?query LF Idempotency-Key LF body) over the bytes received. details holds each part it signed and string_to_sign, the signing string with the body replaced by its SHA-256: build the same from what you signed and compare them line by line.","request_id":"c3b1f0a2-7d4e-4f6a-9b8c-2e5d1a0f9c47","details":{"signature_version":2,"timestamp":"1795856043","method":"POST","path":"/v1/bookings","idempotency_key":"[personal 36 bytes sha256:ca39e0b2]","body_length":577,"body_sha256":"db9cb0450e902ba3bd696d6f47d79690431bf30bcf50c6d4f3ce5c34dad647b2","string_to_sign":"v2\\n1795856043\\nPOST\\n/v1/bookings\\n[personal 36 bytes sha256:ca39e0b2]\\ndb9cb0450e902ba3bd696d6f47d79690431bf30bcf50c6d4f3ce5c34dad647b2"}}',
    content_form: 'reserialized_redacted',
    bytes: 888,
    sha256: 'c66b73984089e0a273634beee41cbe9fb95edba11db9d22b3f06bacd95b87945',
    truncated: false,
  },
};

/** The request log: every request of the partner in the calling key's environment, as the service saw it. */
export const requestLogRoutes = defineRoutes({
  listRequestLogs: {
    method: 'GET',
    path: '/v1/request-logs',
    handler: 'functions/request-logs/list.ts',
    access: 'key',
    scope: 'audit:read',
    tag: 'Meta',
    summary: 'Your requests in this environment, newest first: find a failing one',
    description:
      'Every request made with your keys and console sessions in the environment of the calling key, newest first, keyset-paged: method, path, status, error code, latency, request id, the hash of the Idempotency-Key and whether it was replayed, the key or member, source IP and user agent; for a 401 auth.signature.invalid, what the service signed; for errors, the request and response bodies, re-serialized, with the length and SHA-256 of the bytes received. Only public values are kept (ids, enums, amounts, dates): personal data, secrets, free text and anything the operation does not declare are replaced by a marker with their length and the start of their SHA-256. Filter by status (422) or class (4xx), code, path prefix, request id, Idempotency-Key, key and a time range (occurred_from, occurred_to). An entry appears a few seconds after its request; entries are kept 30 days.',
    request: { query: RequestLogQuery },
    examples: { response: { data: [signatureFailure], meta: { count: 1, next_cursor: null, page_size: 25 } } },
    responses: { 200: { description: 'A page of requests, newest first.', schema: RequestLogPage } },
    // The day partitions of the partner's log; who made each request in words: the partner's members, each key's item.
    dynamo: { data: { Query: [requestLogPartitions.day] }, access: { Query: [accessPartitions.partner], GetItem: [accessPartitions.key] } },
  },
  getRequestLog: {
    method: 'GET',
    path: '/v1/request-logs/{request_id}',
    handler: 'functions/request-logs/get.ts',
    access: 'key',
    scope: 'audit:read',
    tag: 'Meta',
    summary: 'One request of the log, by its request id (X-Request-Id)',
    description:
      "404 resource.not_found for a request id the log does not hold: another partner's or environment's, one older than 30 days, or one made in the last few seconds (an entry appears a few seconds after its request).",
    request: { params: RequestLogParams },
    examples: { response: signatureFailure },
    responses: { 200: { description: 'The request.', schema: RequestLogEntry } },
    // The entry through its request id's pointer.
    dynamo: {
      data: { GetItem: [requestLogPartitions.byId, requestLogPartitions.day] },
      // Who made the request in words: the partner's members, the key's item.
      access: { Query: [accessPartitions.partner], GetItem: [accessPartitions.key] },
    },
  },
});
