import { parseKey, secretMatches } from '../access/api-key';
import type { ApiKeyRecord, IdentityLink, Member, Partner } from '../access/model';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '../access/model';
import { scopesFor } from '../access/roles';
import { accessStore } from '../access/store';
import { clockStore } from '../clock/store';
import type { Principal } from '../http/context';
import { isSessionToken, type SessionClaims, sessionInvalid, verifySessionToken } from '../identity/session';
import { type ClockState, clockMs } from '../kernel/clock';
import { ApiError } from '../kernel/errors';
import type { Env } from '../kernel/tenant';
import { countRequest, evaluate, type RateLimitState, rateHeaders } from './rate-limit';

const invalid = () => new ApiError('auth.api_key.invalid', 'The API key is invalid, revoked or expired.');

export interface Authenticated {
  principal: Principal;
  rate: RateLimitState;
  /** The key's secret from the Authorization header: for the signature check of live writes, never kept beyond it ('' for a console session). */
  secret: string;
}

/** The most keys whose owners one container remembers (a Map in insertion order: the oldest is dropped first). */
export const KEY_OWNERS_CACHED = 10_000;

type KeyOwner = Pick<ApiKeyRecord, 'partner_id' | 'member_id' | 'env' | 'secret_hash'>;

/**
 * Whom a genuine key (its secret matches) or a verified session acts for, known before the reads that decide
 * whether it may: a write claims its Idempotency-Key in that same stage (shared/http/early-claim.ts). `secret`
 * is the presented key's ('' for a session).
 */
export interface Claimant {
  partnerId: string;
  env: Env;
  keyId: string | null;
  secret: string;
}
/** Called once the claimant is known, right before the reads (never for a wrong secret). */
export type Alongside = (c: Claimant) => void;

/**
 * Key id -> whose key it is (partner, member, environment) and its secret's
 * hash. None of these ever changes for a key (a key is never moved or given
 * a new secret, only revoked), so this cache cannot go stale: it holds nothing
 * that a revocation, a disable or a role change touches. It lets a warm
 * container check the presented secret before any call, then read the key,
 * its member and its partner in one BatchGetItem in parallel with the
 * rate-limit counter. A wrong secret never reaches the counter.
 */
const keyOwners = new Map<string, KeyOwner>();

function rememberOwner(key: ApiKeyRecord) {
  if (keyOwners.has(key.key_id)) return;
  if (keyOwners.size >= KEY_OWNERS_CACHED) keyOwners.delete(keyOwners.keys().next().value!);
  keyOwners.set(key.key_id, { partner_id: key.partner_id, member_id: key.member_id, env: key.env, secret_hash: key.secret_hash });
}

interface KeyRead {
  key?: ApiKeyRecord;
  member?: Member;
  partner?: Partner;
  /** This request's count in the key's rate-limit window; counted only for a genuine key. */
  count?: number;
  /** The partner's sandbox clock (sandbox keys only). */
  clock?: ClockState;
}

/**
 * A sandbox request reads its partner's clock in the same stage as its member and partner; a caller that reads no
 * time (the unknown-route answer, which has no grant on the data table) skips it.
 */
const clockOf = (partnerId: string, env: Env, wanted: boolean) => (wanted && env === 'test' ? clockStore.get(partnerId) : Promise.resolve(undefined));

/** The key, its member and its partner as stored now: one stage when the key is known to this container, else two. */
async function readKey(
  keyId: string,
  genuine: (key: KeyOwner) => boolean,
  live: (key: ApiKeyRecord) => boolean,
  nowMs: number,
  withClock: boolean,
  alongside: ((owner: { partner_id: string; env: Env }) => void) | undefined,
): Promise<KeyRead> {
  const owner = keyOwners.get(keyId);
  if (owner && genuine(owner)) {
    alongside?.(owner);
    const [read, count, clock] = await Promise.all([
      accessStore.getMemberAndPartner(owner.partner_id, owner.member_id, keyId),
      countRequest(keyId, nowMs),
      clockOf(owner.partner_id, owner.env, withClock),
    ]);
    // Never expected (owners do not change): checked so that a wrong entry can only cost a read, never grant access.
    if (read.key && read.key.partner_id === owner.partner_id && read.key.member_id === owner.member_id && read.key.secret_hash === owner.secret_hash) {
      return { ...read, count, clock };
    }
    keyOwners.delete(keyId);
  }
  const key = await accessStore.getKey(keyId);
  if (!key || !genuine(key) || !live(key)) return { key };
  alongside?.(key);
  const [read, count, clock] = await Promise.all([
    accessStore.getMemberAndPartner(key.partner_id, key.member_id),
    countRequest(key.key_id, nowMs),
    clockOf(key.partner_id, key.env, withClock),
  ]);
  return { key, ...read, count, clock };
}

/**
 * Resolves the bearer key to a principal. Every request reads the key, its
 * member and its partner strongly consistently, so a revoked key, a disabled
 * member or partner and a changed role apply from the next request on, in
 * every container (docs/guides/authentication.md). A warm container knows the
 * key's owners and reads all three in one BatchGetItem in parallel with the
 * shared rate-limit counter: one stage. The first request of a key in a
 * container reads the key first: two stages. Every failure of the key answers
 * the same 401. `alongside` (a write's Idempotency-Key claim) starts with the
 * last stage's reads, once the presented secret is known genuine.
 */
export async function authenticate(
  authorization: string | undefined,
  nowMs = Date.now(),
  environment?: string,
  withClock = true,
  alongside?: Alongside,
): Promise<Authenticated> {
  if (!authorization || authorization.trim() === '') {
    throw new ApiError('auth.api_key.missing', 'The Authorization header is missing; send Authorization: Bearer <API key>.');
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (m && isSessionToken(m[1]!)) return authenticateSession(m[1]!, environment, nowMs, withClock, alongside);
  const parsed = m ? parseKey(m[1]!) : undefined;
  if (!parsed) throw invalid();
  const genuine = (k: KeyOwner) => k.env === parsed.env && secretMatches(parsed.secret, k.secret_hash);
  const live = (k: ApiKeyRecord) => !k.revoked_at && !(k.expires_at && Date.parse(k.expires_at) <= nowMs);
  // Once: a wrong cached owner (never expected) reads the key again, and the claim made stays with the first.
  let started = false;
  const claim =
    alongside &&
    ((o: { partner_id: string; env: Env }) => {
      if (started) return;
      started = true;
      alongside({ partnerId: o.partner_id, env: o.env, keyId: parsed.prefix, secret: parsed.secret });
    });
  const { key, member, partner, count, clock } = await readKey(parsed.prefix, genuine, live, nowMs, withClock, claim);
  if (!key || !genuine(key)) throw invalid();
  rememberOwner(key);
  if (!live(key)) throw invalid();
  // A disabled member or a disabled partner: the same 401 as any other unusable key.
  if (!member || !partner || !member.enabled || partner.disabled_at || count === undefined) throw invalid();
  // A key that another member issued never acts for a PARTNER_ADMIN: no one holds a working key of a peer admin.
  if (member.role === 'PARTNER_ADMIN' && key.issued_by && key.issued_by !== key.member_id) throw invalid();
  return {
    ...principalOf(partner, member, key.env, count, nowMs, { via: 'api_key', keyId: key.key_id, keyCreatedAt: key.created_at }, clock),
    secret: parsed.secret,
  };
}

/** The principal of an authenticated member, by key or console session, with its request counted. */
function principalOf(
  partner: Partner,
  member: Member,
  env: Env,
  count: number,
  nowMs: number,
  how: Pick<Principal, 'via' | 'keyId' | 'keyCreatedAt' | 'authTime' | 'sessionId'>,
  clock?: ClockState,
): Omit<Authenticated, 'secret'> {
  const lead = env === 'test' ? clockMs(clock, nowMs) - nowMs : 0;
  const limit = partner.rate_limit_per_minute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  const rate = evaluate(count, limit, nowMs);
  return {
    principal: {
      partnerId: partner.partner_id,
      memberId: member.member_id,
      env,
      role: member.role,
      scopes: scopesFor(member.role),
      rateLimitPerMinute: limit,
      rateRemaining: rate.remaining,
      rateReset: rate.reset,
      partnerName: partner.name,
      ...(partner.sandbox_catalog ? { sandboxCatalog: partner.sandbox_catalog } : {}),
      ...(lead > 0 ? { clockOffsetMs: lead } : {}),
      memberEmail: member.email,
      ...how,
    },
    rate,
  };
}

/**
 * Console user -> its partner and member. A link never changes (a removal deletes
 * it and the member), and the member read below checks that it still names this
 * user, so a warm container reads member and partner in one stage, as for keys.
 */
const identityLinks = new Map<string, IdentityLink>();
function rememberLink(sub: string, link: IdentityLink) {
  if (identityLinks.has(sub)) return;
  if (identityLinks.size >= KEY_OWNERS_CACHED) identityLinks.delete(identityLinks.keys().next().value!);
  identityLinks.set(sub, link);
}

/**
 * Ended by a sign-out or a disable: every session signed in before then. auth_time has whole seconds: a
 * sign-in in the very second of the change is taken as after it (a member re-enabled at once can sign in
 * again), unless it is the very sign-in that signed out (its origin_jti).
 */
function sessionEnded(member: Member, claims: SessionClaims): boolean {
  if (!member.sessions_revoked_at) return false;
  const second = Math.floor(Date.parse(member.sessions_revoked_at) / 1000);
  return claims.authTime < second || (claims.authTime === second && claims.originJti !== undefined && claims.originJti === member.sessions_revoked_id);
}

const ENVIRONMENTS: Record<string, Env> = { live: 'live', sandbox: 'test', test: 'test' };

/**
 * A console session: the Cognito access token (verified with aws-jwt-verify)
 * names a console user, linked to one member; the session acts as that member
 * in the environment of its X-Environment header. As with keys, the member and
 * its partner are read strongly consistently on every request: a disabled or
 * removed member's session fails at its next request, and a session signed in
 * before the member's last disable stays refused after it is enabled again.
 * Its requests count against the partner's limit under their own counter (one
 * per member).
 */
async function authenticateSession(
  token: string,
  environment: string | undefined,
  nowMs: number,
  withClock: boolean,
  alongside: Alongside | undefined,
): Promise<Authenticated> {
  const claims = await verifySessionToken(token, nowMs);
  const env = environment === undefined ? undefined : ENVIRONMENTS[environment.trim().toLowerCase()];
  const link = identityLinks.get(claims.sub) ?? (await accessStore.getIdentity(claims.sub));
  if (!link) throw sessionInvalid();
  rememberLink(claims.sub, link);
  if (env) alongside?.({ partnerId: link.partner_id, env, keyId: null, secret: '' });
  const [{ member, partner }, count, clock] = await Promise.all([
    accessStore.getMemberAndPartner(link.partner_id, link.member_id),
    countRequest(`console#${link.member_id}`, nowMs),
    env ? clockOf(link.partner_id, env, withClock) : undefined,
  ]);
  if (!member || !partner || !member.enabled || partner.disabled_at || member.identity_id !== claims.sub) throw sessionInvalid();
  // A disable signed the user out everywhere: a session from before it stays ended after an enable.
  if (sessionEnded(member, claims)) throw sessionInvalid();
  // Counted like any request of the session: its 400 carries the X-RateLimit-* headers as every answer does.
  if (!env) {
    const rate = evaluate(count, partner.rate_limit_per_minute ?? DEFAULT_RATE_LIMIT_PER_MINUTE, nowMs);
    throw new ApiError(
      'auth.session.environment_required',
      'A console session chooses its environment: send X-Environment: sandbox or X-Environment: live.',
      { header: 'X-Environment', ...(environment === undefined ? {} : { received: environment.slice(0, 20) }) },
      rateHeaders(rate),
    );
  }
  const how = { via: 'console', keyId: null, keyCreatedAt: null, authTime: claims.authTime, sessionId: claims.originJti } as const;
  return { ...principalOf(partner, member, env, count, nowMs, how, clock), secret: '' };
}
