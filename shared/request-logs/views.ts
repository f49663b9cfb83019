import type { z } from 'zod';
import type { RequestLogEntry as Stored } from './entry';
import { IDEMPOTENCY_KEY_HASH, idempotencyKeyHash } from './marker';
import type { BodyExcerpt } from './redact';
import type { RequestLogEntry } from './schemas';

export type RequestLogView = z.input<typeof RequestLogEntry>;

/** The signed parts in signing order (DynamoDB keeps a map's attributes in no order). */
const SIGNED_PARTS = ['signature_version', 'timestamp', 'method', 'path', 'idempotency_key', 'body_length', 'body_sha256', 'string_to_sign'];

function inSigningOrder(signature: Record<string, unknown>): Record<string, unknown> {
  const rank = (k: string) => (SIGNED_PARTS.includes(k) ? SIGNED_PARTS.indexOf(k) : SIGNED_PARTS.length);
  return Object.fromEntries(Object.entries(signature).sort(([a], [b]) => rank(a) - rank(b)));
}

/** A body as stored; one written before the body's hash was recorded has neither hash nor content_form. */
const bodyView = (b: Partial<BodyExcerpt> | null | undefined): RequestLogView['request_body'] =>
  b
    ? {
        content: b.content ?? null,
        content_form: b.content_form ?? null,
        bytes: b.bytes ?? 0,
        sha256: b.sha256 ?? null,
        truncated: b.truncated ?? false,
        ...(b.omitted ? { omitted: b.omitted } : {}),
      }
    : null;

/** The key's hash; an entry written before keys were hashed holds the key itself, hashed here. */
const keyView = (key: string | null | undefined) => (key ? (IDEMPOTENCY_KEY_HASH.test(key) ? key : idempotencyKeyHash(key)) : null);

/** An entry as the API answers it: the stored fields, in the document's order (rows written by older code lack none of them). */
export function requestLogView(e: Stored): RequestLogView {
  return {
    request_id: e.request_id,
    occurred_at: e.occurred_at,
    environment: e.environment,
    method: e.method,
    path: e.path,
    query: e.query ?? null,
    status: e.status,
    error_code: e.error_code ?? null,
    latency_ms: e.latency_ms,
    idempotency_key: keyView(e.idempotency_key),
    idempotent_replayed: e.idempotent_replayed,
    replay_of: e.replay_of ?? null,
    via: e.via,
    key_id: e.key_id ?? null,
    member_id: e.member_id,
    source_ip: e.source_ip ?? null,
    user_agent: e.user_agent ?? null,
    signature: e.signature ? inSigningOrder(e.signature) : null,
    request_body: bodyView(e.request_body),
    response_body: bodyView(e.response_body),
  };
}
