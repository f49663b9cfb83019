import { fingerprint, idempotency, type StoredResponse } from '../platform/idempotency';
import type { RequestState } from './context';
import { pathWithQuery } from './headers';
import { errorResult, toApiError } from './respond';
import type { ApiEvent, ApiResult } from './types';

/** Secrets shown once (a new key, a signing secret) are never stored: a replay carries null instead. */
function redact(body: string, fields: string[] | undefined): string {
  if (!fields?.length || !body) return body;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    for (const f of fields) if (f in parsed) parsed[f] = null;
    return JSON.stringify(parsed);
  } catch {
    return body;
  }
}

function stored(result: ApiResult, secretFields: string[] | undefined): StoredResponse {
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  return { status: result.statusCode ?? 200, headers, body: redact(result.body ?? '', secretFields), isBase64Encoded: result.isBase64Encoded ?? false };
}

/**
 * Runs a write at most once per (partner, environment, Idempotency-Key).
 * A completed key is replayed with `Idempotent-Replayed: true` and the request
 * id of the request that produced it. Every outcome of an operation that ran
 * is stored, errors included, as Stripe does; requests refused before running
 * (authentication, validation, rate limit) store nothing.
 */
export async function runIdempotent(event: ApiEvent, state: RequestState, run: () => Promise<ApiResult>): Promise<ApiResult> {
  const p = state.principal!;
  const scope = { partnerId: p.partnerId, env: p.env, idempotencyKey: state.idempotencyKey! };
  const fp = fingerprint(event.requestContext.http.method, pathWithQuery(event), state.rawBody);
  const claim = await idempotency.claim(scope, fp, state.requestId);
  if (claim.kind === 'replay') {
    const res = claim.response;
    return {
      statusCode: res.status,
      headers: { ...res.headers, 'idempotent-replayed': 'true', 'x-request-id': claim.requestId },
      body: res.body,
      isBase64Encoded: res.isBase64Encoded,
    };
  }
  let result: ApiResult;
  try {
    result = await run();
  } catch (e) {
    result = errorResult(toApiError(e), state.requestId);
  }
  // Awaited by the HTTP layer together with the audit write, before the response leaves.
  state.pending.push(idempotency.complete(scope, claim.token, stored(result, state.route.secretFields)));
  return result;
}
