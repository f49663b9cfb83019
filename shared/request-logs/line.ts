import type { RequestState } from '../http/context';
import { requestLogFault } from '../http/fault';
import { headerValue } from '../http/headers';
import type { ApiEvent, ApiResult } from '../http/types';
import { REQUEST_LOG_MARKER, type RequestLogEntry, type RequestLogLine } from './entry';
import { redactDiagnostics, redactErrorBody } from './error-body';
import { idempotencyKeyHash, scrub, Withheld } from './marker';
import { bodyExcerpt, redactPath, redactQuery, redactValue } from './redact';

const MAX_HEADER_CHARS = 512;

function errorOf(result: ApiResult): { code: string | null; details?: Record<string, unknown> } {
  try {
    const body = JSON.parse(result.body ?? '') as { code?: unknown; details?: Record<string, unknown> };
    return { code: typeof body.code === 'string' ? body.code : null, details: body.details };
  } catch {
    return { code: null };
  }
}

/**
 * The request's entry, redacted by the route's data classes (redact.ts): bodies and the signature diagnostics
 * only for errors. The request's own parts are read first, so that what they withhold is also masked where the
 * answer quotes it; of the headers, only User-Agent is kept, and the Idempotency-Key as its hash.
 */
export function requestLogEntry(state: RequestState, event: ApiEvent, result: ApiResult, durationMs: number): RequestLogEntry {
  const p = state.principal!;
  const def = state.route;
  const status = result.statusCode ?? 200;
  const replayed = result.headers['idempotent-replayed'] === 'true';
  const failed = status >= 400;
  const error = failed ? errorOf(result) : { code: null };
  const http = event.requestContext?.http;
  const w = new Withheld();
  const idempotencyKey = state.idempotencyKey ?? headerValue(event, 'idempotency-key');
  if (idempotencyKey) w.text('personal', idempotencyKey);
  const authorization = headerValue(event, 'authorization');
  if (authorization) w.text('secret', authorization.replace(/^\s*Bearer\s+/i, ''));
  const path = redactPath(state.path, def, w);
  const query = event.rawQueryString ? redactQuery(event.rawQueryString, def.request?.query, w) : null;
  const requestBody = failed ? bodyExcerpt(state.bodyBytes, (parsed) => redactValue(parsed, def.request?.body, w)) : null;
  const signature = error.code === 'auth.signature.invalid' && error.details ? redactDiagnostics(error.details, def, w) : null;
  const userAgent = headerValue(event, 'user-agent') ?? http?.userAgent;
  return {
    request_id: state.requestId,
    occurred_at: new Date(state.startedAt).toISOString(),
    environment: p.env,
    method: http?.method ?? state.route.method,
    path,
    query,
    status,
    error_code: error.code,
    latency_ms: durationMs,
    idempotency_key: idempotencyKey ? idempotencyKeyHash(idempotencyKey) : null,
    idempotent_replayed: replayed,
    replay_of: replayed ? (result.headers['x-request-id'] ?? null) : null,
    via: p.via,
    key_id: p.keyId,
    member_id: p.memberId,
    source_ip: http?.sourceIp ?? null,
    user_agent: userAgent ? scrub(w.echoesMasked(userAgent.slice(0, MAX_HEADER_CHARS))) : null,
    signature,
    request_body: requestBody,
    response_body: failed ? bodyExcerpt(result.body ?? '', (parsed) => redactErrorBody(parsed, def, w)) : null,
  };
}

/**
 * Writes the request's log line to stdout, whatever the log level: in AWS the function's log group has a
 * subscription filter on its marker that hands it to the request log's consumer (infra/constructs/request-logs.ts),
 * locally infra/local/log-subscriptions.ts does the same. No AWS call and no wait: the request never fails
 * because of it, and a line that cannot be built is dropped with a word in the log.
 */
export function writeRequestLog(state: RequestState, event: ApiEvent, result: ApiResult, durationMs: number): void {
  if (!state.principal) return;
  try {
    const line: RequestLogLine & { level: string; message: string; timestamp: string; route: string } = {
      level: 'INFO',
      message: 'request log',
      timestamp: new Date().toISOString(),
      // As on the function's other lines: the local runtime, whose functions share one log file, tells them apart by it.
      route: `${state.route.method} ${state.route.path}`,
      [REQUEST_LOG_MARKER]: 1,
      partner_id: state.principal.partnerId,
      ...requestLogEntry(state, event, result, durationMs),
      // Test runs only: the consumer fails this line's first deliveries (X-Fault-Inject: request-log-fails=N).
      ...requestLogFault(event),
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  } catch (e) {
    process.stdout.write(`${JSON.stringify({ level: 'ERROR', message: 'request log line not written', error: (e as Error).message })}\n`);
  }
}
