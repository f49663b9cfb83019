import { parseKey, secretMatches } from '../access/api-key';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '../access/model';
import { scopesFor } from '../access/roles';
import { accessStore } from '../access/store';
import type { Principal } from '../http/context';
import { ApiError } from '../kernel/errors';
import { countRequest, evaluate, type RateLimitState } from './rate-limit';

const invalid = () => new ApiError('auth.api_key.invalid', 'The API key is invalid, revoked or expired.');

export interface Authenticated {
  principal: Principal;
  rate: RateLimitState;
  /** The key's secret from the Authorization header: for the signature check of live writes, never kept beyond it. */
  secret: string;
}

/**
 * Resolves the bearer key to a principal in two round trips: the key by its
 * prefix, then the member and partner (one BatchGetItem) in parallel with the
 * shared rate-limit counter. Every failure of the key answers the same 401.
 */
export async function authenticate(authorization: string | undefined, nowMs = Date.now()): Promise<Authenticated> {
  if (!authorization || authorization.trim() === '') {
    throw new ApiError('auth.api_key.missing', 'The Authorization header is missing; send Authorization: Bearer <API key>.');
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  const parsed = m ? parseKey(m[1]!) : undefined;
  if (!parsed) throw invalid();
  const key = await accessStore.getKey(parsed.prefix);
  if (!key || key.env !== parsed.env || !secretMatches(parsed.secret, key.secret_hash)) throw invalid();
  if (key.revoked_at || (key.expires_at && Date.parse(key.expires_at) <= nowMs)) throw invalid();

  const [{ member, partner }, count] = await Promise.all([accessStore.getMemberAndPartner(key.partner_id, key.member_id), countRequest(key.key_id, nowMs)]);
  // A disabled member or a disabled partner: the same 401 as any other unusable key.
  if (!member || !partner || !member.enabled || partner.disabled_at) throw invalid();
  // A key that another member issued never acts for a PARTNER_ADMIN: no one holds a working key of a peer admin.
  if (member.role === 'PARTNER_ADMIN' && key.issued_by && key.issued_by !== key.member_id) throw invalid();
  const limit = partner.rate_limit_per_minute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  const rate = evaluate(count, limit, nowMs);
  return {
    principal: {
      partnerId: key.partner_id,
      memberId: key.member_id,
      keyId: key.key_id,
      env: key.env,
      role: member.role,
      scopes: scopesFor(member.role),
      rateLimitPerMinute: limit,
      rateRemaining: rate.remaining,
      rateReset: rate.reset,
      partnerName: partner.name,
      ...(partner.sandbox_catalog ? { sandboxCatalog: partner.sandbox_catalog } : {}),
      memberEmail: member.email,
      keyCreatedAt: key.created_at,
    },
    rate,
    secret: parsed.secret,
  };
}
