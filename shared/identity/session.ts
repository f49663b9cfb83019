import { JwtRsaVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { ApiError } from '../kernel/errors';
import { identity } from './config';

/** A console session may make a live write only this long after its sign-in (password and TOTP). */
export const REAUTH_AFTER_SECONDS = 15 * 60;

/**
 * How far in the future a token's sign-in (auth_time) and issue (iat) may lie: the clock skew allowed between
 * Cognito and the function. Both keep AWS's time, so 30 s is ample; a later sign-in is a forged or broken
 * token, whose negative age would pass the 15-minute rule above and outlive a sign-out.
 */
export const SESSION_CLOCK_SKEW_SECONDS = 30;

/** A bearer credential that is a JWT (three base64url parts), not an API key. */
export const isSessionToken = (token: string) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);

function makeVerifier() {
  const c = identity();
  // The library fetches over HTTPS only; the local Cognito serves its JWKS over plain HTTP on loopback.
  const fetcher = c.jwksUri.startsWith('http:') ? { fetch: async (uri: string) => (await fetch(uri)).arrayBuffer() } : undefined;
  return JwtRsaVerifier.create(
    {
      issuer: c.issuer,
      jwksUri: c.jwksUri,
      audience: null,
      // Access tokens of the console's app client only: an ID token, or a token of another client, is refused.
      customJwtCheck: ({ payload }) => {
        if (payload.token_use !== 'access') throw new Error('not an access token');
        if (payload.client_id !== c.clientId) throw new Error('token of another client');
        if (typeof payload.sub !== 'string' || typeof payload.auth_time !== 'number') throw new Error('token without sub or auth_time');
      },
    },
    fetcher ? { jwksCache: new SimpleJwksCache({ fetcher }) } : undefined,
  );
}
let verifier: ReturnType<typeof makeVerifier> | undefined;

export const sessionInvalid = () => new ApiError('auth.session.invalid', 'The console session is invalid or has ended; sign in again.');

export interface SessionClaims {
  sub: string;
  /** Unix seconds of the sign-in (kept across token refreshes). */
  authTime: number;
  /** The sign-in's own id (Cognito's origin_jti, kept across refreshes): what a sign-out revokes exactly. */
  originJti?: string;
}

/**
 * Verifies a console access token (signature, issuer, expiry, client, token use) with aws-jwt-verify, which
 * checks no time but exp and nbf; then refuses a sign-in or an issue from the future (beyond the allowed skew).
 */
export async function verifySessionToken(token: string, nowMs = Date.now()): Promise<SessionClaims> {
  let payload: JwtPayload;
  try {
    verifier ??= makeVerifier();
    payload = await verifier.verify(token);
  } catch {
    throw sessionInvalid();
  }
  const latest = Math.floor(nowMs / 1000) + SESSION_CLOCK_SKEW_SECONDS;
  if ((payload.auth_time as number) > latest || (payload.iat ?? 0) > latest) throw sessionInvalid();
  return {
    sub: payload.sub as string,
    authTime: payload.auth_time as number,
    ...(typeof payload.origin_jti === 'string' ? { originJti: payload.origin_jti } : {}),
  };
}
