import { accessRepository } from '../access/repository';
import type { Principal } from '../http/context';

/** GET /me: what the current key is and may do. */
export async function describeKey(p: Principal) {
  const [{ member, partner }, key] = await Promise.all([accessRepository.getMemberAndPartner(p.partnerId, p.memberId), accessRepository.getKey(p.keyId)]);
  return {
    partner: { id: p.partnerId, name: partner?.name ?? '' },
    environment: p.env,
    test_mode: p.env === 'test',
    key: { id: p.keyId, created_at: key?.created_at ?? '' },
    member: { id: p.memberId, email: member?.email ?? '', role: member?.role ?? p.role },
    scopes: [...p.scopes].sort(),
    rate_limit: { limit_per_minute: p.rateLimitPerMinute, remaining: p.rateRemaining, reset: p.rateReset },
  };
}
