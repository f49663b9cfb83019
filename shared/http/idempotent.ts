import type { Seal } from '../db/client';
import { isTransient } from '../kernel/errors';
import { logger } from '../kernel/logger';
import { auditItem } from '../platform/audit';
import { fingerprint, idempotency, lockLost, type StoredResponse } from '../platform/idempotency';
import { signatureReplayed } from '../platform/signature-replay';
import { auditEventOf } from './audit-event';
import type { RequestState } from './context';
import { takeEarlyClaim } from './early-claim';
import { SimulatedCrash } from './fault';
import { pathWithQuery } from './headers';
import { errorResult, jsonResult, toApiError } from './respond';
import { type RouteDef, routeTimeoutMs, successStatus } from './route-def';
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
 * The seal a write route hands its operation: the operation calls `items`
 * with its result when it builds the transaction that commits it, and the
 * request's completed idempotency record (the success response, made by
 * `view`) commits in that same transaction. Reads and public routes get a
 * seal that adds nothing.
 */
export function sealFor<T>(def: RouteDef, state: RequestState, view: (result: T) => unknown): Seal<T> {
  return {
    items(result) {
      const claim = state.idempotency;
      if (!claim) return [];
      const response = jsonResult(successStatus(def), view(result));
      const committed = () => {
        // Only a committed transaction stored this answer; a cancelled one (sold out, a lost race) stored nothing.
        state.sealed = response;
        state.audited = true;
      };
      return [
        {
          item: idempotency.completion(claim.scope, claim.token, stored(response, def.secretFields)),
          refusal: () => lockLost(claim.scope.idempotencyKey),
          committed,
        },
        // The audit line of the write commits with it: no write after the operation on the success path.
        {
          item: auditItem(claim.scope.partnerId, auditEventOf(state, response.statusCode ?? successStatus(def), false)),
          refusal: () => lockLost(claim.scope.idempotencyKey),
          committed,
        },
      ];
    },
  };
}

/**
 * Runs a write at most once per (partner, environment, Idempotency-Key).
 * A completed key is replayed with `Idempotent-Replayed: true` and the request
 * id of the request that produced it. What is stored, as Stripe does:
 * - an outcome that committed: the success, in the operation's own transaction
 *   (see sealFor), replayed even if something failed after it;
 * - the deterministic refusals of an operation that ran (404, 409, 422), right after it;
 * - not a transient failure before the commit (contention, 5xx: isTransient): the
 *   operation wrote nothing of its change, so the claim is released and a retry
 *   with the same key runs it again. A route that acts outside that commit
 *   (`effectsOutsideCommit`: an e-mail, an outbound call) stores those too, since
 *   a rerun would act again; not a 429 (a budget), refused before it acts. Should
 *   a commit have landed though its answer was lost (a timeout), the record is
 *   COMPLETED: the release, conditional on IN_PROGRESS, does nothing, and the
 *   retry gets the committed answer.
 * Requests refused before running (authentication, validation, rate limit) store nothing.
 * A route whose success describes a state that moves on (`current`) answers a replayed success as it stands now.
 */
export async function runIdempotent(
  event: ApiEvent,
  state: RequestState,
  run: () => Promise<ApiResult>,
  /** The route's answer as things stand now, for the replay of a success (RouteOptions.replaysCurrent). */
  current?: () => Promise<ApiResult>,
): Promise<ApiResult> {
  const p = state.principal!;
  const scope = { partnerId: p.partnerId, env: p.env, idempotencyKey: state.idempotencyKey! };
  // The claim made beside authentication hashed this same request already: not hashed twice on the hot path.
  const fp = state.early?.fingerprint ?? fingerprint(event.requestContext.http.method, pathWithQuery(event), state.bodyBytes);
  // Claimed beside the authentication reads (early-claim.ts), with the live signature's record: the operation runs only if both hold.
  const [accepted, claimed] = await Promise.allSettled([
    state.signatureAccepted ?? true,
    takeEarlyClaim(state, scope, fp) ?? idempotency.claim(scope, fp, state.requestId, routeTimeoutMs(state.route)),
  ]);
  if (accepted.status === 'rejected' || accepted.value === false) {
    // Refused before running: the request leaves no claim behind, so the key stays free for a correct request.
    if (claimed.status === 'fulfilled' && claimed.value.kind === 'run') await idempotency.release(scope, claimed.value.token);
    throw accepted.status === 'rejected' ? accepted.reason : signatureReplayed();
  }
  if (claimed.status === 'rejected') throw claimed.reason;
  const claim = claimed.value;
  if (claim.kind === 'replay') {
    const res = claim.response;
    if (current && res.status < 300) {
      const now = await current();
      return { ...now, headers: { ...now.headers, 'idempotent-replayed': 'true', 'x-request-id': claim.requestId } };
    }
    return {
      statusCode: res.status,
      headers: { ...res.headers, 'idempotent-replayed': 'true', 'x-request-id': claim.requestId },
      body: res.body,
      isBase64Encoded: res.isBase64Encoded,
    };
  }
  state.idempotency = { scope, token: claim.token };
  let result: ApiResult;
  try {
    result = await run();
  } catch (e) {
    if (e instanceof SimulatedCrash) throw e;
    if (state.sealed) {
      // The operation committed with its outcome; what failed after it must not contradict the stored answer.
      logger.error('failure after the operation committed', { error: e instanceof Error ? e.message : String(e) });
      return state.sealed;
    }
    const err = toApiError(e);
    // A 429 (a budget) refuses before the operation acts, on every route: like contention, it is never stored.
    if (isTransient(err) && (!state.route.effectsOutsideCommit || err.status === 429)) {
      // Nothing of the change was written: the key is freed, so the retry the error asks for runs the operation again.
      state.pending.push(idempotency.release(scope, claim.token));
      return errorResult(err, state.requestId);
    }
    result = errorResult(err, state.requestId);
  }
  if (state.sealed) return state.sealed;
  // Awaited by the HTTP layer together with the audit write, before the response leaves.
  state.pending.push(idempotency.complete(scope, claim.token, stored(result, state.route.secretFields)));
  return result;
}
