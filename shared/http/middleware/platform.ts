import type { MiddlewareObj } from '@middy/core';
import { REAUTH_AFTER_SECONDS } from '../../identity/session';
import { ApiError } from '../../kernel/errors';
import { logger } from '../../kernel/logger';
import { isIdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH } from '../../platform/idempotency';
import { checkTimestamp, signatureInvalid, signatureMatches, signParts, unknownSignatureVersion } from '../../platform/signature';
import { acceptSignatureOnce } from '../../platform/signature-replay';
import { authenticateRequest } from '../authenticate-request';
import { type RouteContext, stateOf } from '../context';
import { claimBeside, earlySignature, giveBackEarly } from '../early-claim';
import { headerValue } from '../headers';
import type { RouteDef } from '../route-def';
import { signedParts } from '../signed-parts';
import type { ApiEvent, ApiResult } from '../types';

function idempotencyKeyOf(event: ApiEvent): string {
  const key = headerValue(event, 'idempotency-key');
  if (key === undefined)
    throw new ApiError('idempotency.key.missing', 'Writes need an Idempotency-Key header (a UUID v4 per logical operation is recommended).');
  if (!isIdempotencyKey(key)) {
    throw new ApiError('idempotency.key.invalid', `Idempotency-Key must be a non-blank string of at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`, {
      length: key.length,
    });
  }
  return key;
}

/**
 * The rules every keyed route shares, in order: API key and rate limit
 * (headers on every keyed response), sandbox-only routes (404 to live keys),
 * scope, the live-only rules (a sandbox key never changes production), the
 * request signature of live writes, the Idempotency-Key of writes, and a
 * version 1 live signature is accepted once (its retry with the same
 * Idempotency-Key aside). A write's Idempotency-Key is claimed, and its
 * version 1 signature recorded, beside the authentication reads
 * (early-claim.ts); a request refused before it runs gives both back.
 */
export function platform(def: RouteDef): MiddlewareObj<ApiEvent, ApiResult, Error, RouteContext> {
  return {
    before: async (request) => {
      if (def.access === 'public') return;
      const event = request.event;
      const state = stateOf(request.context);
      const now = Date.now();
      const { principal, secret } = await authenticateRequest(event, state.headers, now, { alongside: claimBeside(event, state, now) });
      state.principal = principal;
      // Who is calling, on every later log line of the request (never as a metric dimension).
      logger.appendKeys({ partner_id: principal.partnerId, environment: principal.env, key_id: principal.keyId, via: principal.via });
      // Test helpers exist only in the sandbox: to a live key they are a path that does not exist.
      if (def.sandboxOnly && principal.env !== 'test') {
        throw new ApiError('request.route.not_found', `No route matches ${def.method} ${event.rawPath}: test helpers answer sandbox keys (sk_test_) only.`);
      }
      if (def.scope && !principal.scopes.has(def.scope)) {
        throw new ApiError('auth.scope.insufficient', `This operation needs the scope '${def.scope}', which role ${principal.role} does not have.`, {
          required_scope: def.scope,
          role: principal.role,
        });
      }
      // A sandbox key never changes production: refused where the change reaches it.
      const liveRequired = def.liveOnly ?? (principal.via === 'api_key' ? def.liveKeysOnly : undefined);
      if (liveRequired && principal.env !== 'live') {
        throw new ApiError('auth.environment.live_required', `${liveRequired} Use a live key (sk_live_), and sign the request.`, {
          environment: principal.env,
        });
      }
      if (!def.write) return;
      let signature: string | undefined;
      if (principal.via === 'console') {
        // No key secret signs a session's write: a live one needs a recent sign-in (password and TOTP) instead.
        const age = Math.floor(now / 1000) - (principal.authTime ?? 0);
        if (principal.env === 'live' && age > REAUTH_AFTER_SECONDS && !def.endsSessions) {
          throw new ApiError(
            'auth.session.reauthentication_required',
            `Live changes from the console need a sign-in of the last ${REAUTH_AFTER_SECONDS / 60} minutes; sign in again (password and authenticator code) and retry.`,
            { signed_in_seconds_ago: age, max_seconds: REAUTH_AFTER_SECONDS },
          );
        }
      } else if (principal.env === 'live') {
        const ts = headerValue(event, 'x-timestamp');
        const t = checkTimestamp(ts, Math.floor(now / 1000));
        if (!t.ok) throw new ApiError(t.missing ? 'auth.timestamp.missing' : 'auth.timestamp.skew', t.reason);
        const parts = signedParts(event, ts!);
        if (!parts) throw unknownSignatureVersion(headerValue(event, 'x-signature-version')!);
        const given = headerValue(event, 'x-signature');
        if (!signatureMatches(signParts(secret, parts, state.bodyBytes), given)) throw signatureInvalid(parts, state.bodyBytes);
        // Version 2 signs the Idempotency-Key: its replay carries that key and gets the stored answer. Version 1 is accepted once.
        if (parts.version === '1') signature = given;
      }
      state.idempotencyKey = idempotencyKeyOf(event);
      if (signature && principal.keyId) {
        // Recorded beside the authentication reads (early-claim.ts; else now, beside runIdempotent's claim): the
        // operation runs only once both the record and the claim answered. Landed before the response leaves.
        state.signatureAccepted =
          earlySignature(state, signature) ?? acceptSignatureOnce(principal.keyId, signature, state.idempotencyKey, state.requestId, now);
        state.signatureAccepted.catch(() => undefined);
        state.pending.push(state.signatureAccepted);
      }
    },
    // Refused before runIdempotent took the early claim (here, in validation): nothing of it stays.
    onError: async (request) => {
      if (request.context.http) await giveBackEarly(request.context.http);
    },
  };
}
