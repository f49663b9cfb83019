import { logger } from '../kernel/logger';
import type { Claimant } from '../platform/authenticate';
import { type Claim, fingerprint, type IdempotencyScope, idempotency, isIdempotencyKey } from '../platform/idempotency';
import { checkTimestamp, signatureMatches, signParts } from '../platform/signature';
import { forgetSignature, recordSignature } from '../platform/signature-replay';
import type { RequestState } from './context';
import { headerValue, pathWithQuery } from './headers';
import { routeTimeoutMs } from './route-def';
import { signedParts } from './signed-parts';
import type { ApiEvent } from './types';

const quiet = <T>(p: Promise<T>) => {
  p.catch(() => undefined);
  return p;
};

/** The version 1 signature of a live key's request, if the presented secret makes it and its timestamp is in the window. */
function v1Signature(event: ApiEvent, state: RequestState, secret: string, nowMs: number): string | undefined {
  const ts = headerValue(event, 'x-timestamp');
  if (!checkTimestamp(ts, Math.floor(nowMs / 1000)).ok) return undefined;
  const parts = signedParts(event, ts!);
  const given = headerValue(event, 'x-signature');
  return parts?.version === '1' && signatureMatches(signParts(secret, parts, state.bodyBytes), given) ? given : undefined;
}

/**
 * What a write starts beside its authentication reads, once the key is known genuine (its secret matches the
 * stored hash) and so whose it is: the claim of its Idempotency-Key, scoped to the partner and environment the
 * presented key acts for, and its version 1 signature's record. Nothing is claimed for a wrong secret, a missing or
 * invalid Idempotency-Key (refused with its 400 after authentication) or a read. If the request is then refused
 * before runIdempotent takes the claim (authentication, rate limit, scope, signature, validation), giveBackEarly
 * releases both before the answer leaves, so a later request sees neither.
 */
export function claimBeside(event: ApiEvent, state: RequestState, nowMs: number): ((c: Claimant) => void) | undefined {
  const key = headerValue(event, 'idempotency-key');
  if (!state.route.write || key === undefined || !isIdempotencyKey(key)) return undefined;
  return (c) => {
    if (state.early) return;
    const scope = { partnerId: c.partnerId, env: c.env, idempotencyKey: key };
    const fp = fingerprint(event.requestContext.http.method, pathWithQuery(event), state.bodyBytes);
    const claim = quiet(idempotency.claim(scope, fp, state.requestId, routeTimeoutMs(state.route)));
    const value = c.keyId && c.env === 'live' ? v1Signature(event, state, c.secret, nowMs) : undefined;
    const signature = c.keyId && value ? { keyId: c.keyId, value, recorded: quiet(recordSignature(c.keyId, value, key, state.requestId, nowMs)) } : undefined;
    state.early = { scope, fingerprint: fp, claim, signature, settled: false };
  };
}

const sameScope = (a: IdempotencyScope, b: IdempotencyScope) => a.partnerId === b.partnerId && a.env === b.env && a.idempotencyKey === b.idempotencyKey;

/** The claim made beside authentication, if it is this request's (its principal's scope and fingerprint); else undefined, and any other one is given back. */
export function takeEarlyClaim(state: RequestState, scope: IdempotencyScope, fp: string): Promise<Claim> | undefined {
  const early = state.early;
  if (!early || early.settled) return undefined;
  if (sameScope(early.scope, scope) && early.fingerprint === fp) {
    early.settled = true;
    return early.claim;
  }
  state.pending.push(giveBackEarly(state));
  return undefined;
}

/** The early signature record of this signature, if one was made: whether it was accepted. */
export function earlySignature(state: RequestState, signature: string): Promise<boolean> | undefined {
  const s = state.early?.signature;
  return s && s.value === signature ? s.recorded.then((r) => r.accepted) : undefined;
}

/**
 * Gives back what a refused request claimed beside its authentication: the claim (only while it holds it) and the
 * signature record it created (only its own). Never throws: the refusal is the answer.
 */
export async function giveBackEarly(state: RequestState): Promise<void> {
  const early = state.early;
  if (!early || early.settled) return;
  early.settled = true;
  const none = () => undefined; // a claim refused (reused, in progress) or a record not made: nothing to give back
  const signature = early.signature;
  const outcomes = await Promise.allSettled([
    early.claim.then((c) => (c.kind === 'run' ? idempotency.release(early.scope, c.token) : undefined), none),
    signature?.recorded.then((r) => (r.created ? forgetSignature(signature.keyId, signature.value, state.requestId) : undefined), none),
  ]);
  for (const o of outcomes) {
    if (o.status === 'rejected')
      logger.error('early idempotency claim not given back', { error: o.reason instanceof Error ? o.reason.message : String(o.reason) });
  }
}
