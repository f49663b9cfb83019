import type { Env } from '../kernel/tenant';
import type { BodyExcerpt } from './redact';

/** One request as its partner sees it in the request log: only public values, the rest as markers (redact.ts). */
export interface RequestLogEntry {
  request_id: string;
  occurred_at: string;
  environment: Env;
  method: string;
  path: string;
  /** The raw query string, each value kept only when its parameter is public and the value valid; null when there was none. */
  query: string | null;
  status: number;
  error_code: string | null;
  latency_ms: number;
  /** The Idempotency-Key's hash, sha256:<hex>: never the key. */
  idempotency_key: string | null;
  idempotent_replayed: boolean;
  /** A replay's original request (its X-Request-Id). */
  replay_of: string | null;
  via: 'api_key' | 'console';
  key_id: string | null;
  member_id: string;
  source_ip: string | null;
  user_agent: string | null;
  /** What the service signed, for an auth.signature.invalid refusal (the error's details), redacted as path, query and key are. */
  signature: Record<string, unknown> | null;
  /** Errors only (status >= 400). */
  request_body: BodyExcerpt | null;
  response_body: BodyExcerpt | null;
}

/** The request log's consumer, which the route log groups' subscription filters invoke (infra/constructs/request-logs.ts; locally infra/local/log-subscriptions.ts). */
export const REQUEST_LOG_CONSUMER = 'functions/request-logs/ingest.ts';

/** The marker field of a request log line, which the log groups' subscription filters match. */
export const REQUEST_LOG_MARKER = 'request_log';
/** The CloudWatch Logs filter pattern of those lines. */
export const REQUEST_LOG_FILTER_PATTERN = `{ $.${REQUEST_LOG_MARKER} = 1 }`;

/** A request log line as the route functions write it: the marker, the partner, and the entry. */
export type RequestLogLine = { [REQUEST_LOG_MARKER]: 1; partner_id: string } & RequestLogEntry;
