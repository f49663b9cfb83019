import type { z } from 'zod';
import type { Principal } from '../http/context';
import type { Me } from './schemas';

/** GET /me: what the current key is and may do (all of it loaded by authentication). */
export function describeKey(p: Principal): z.input<typeof Me> {
  return {
    partner: { id: p.partnerId, name: p.partnerName },
    environment: p.env,
    test_mode: p.env === 'test',
    via: p.via,
    key: p.keyId && p.keyCreatedAt ? { key_id: p.keyId, id: p.keyId, created_at: p.keyCreatedAt } : null,
    ...(p.authTime === undefined ? {} : { session: { signed_in_at: new Date(p.authTime * 1000).toISOString() } }),
    member: { id: p.memberId, email: p.memberEmail, role: p.role as z.input<typeof Me>['member']['role'] },
    scopes: [...p.scopes].sort(),
    rate_limit: { limit_per_minute: p.rateLimitPerMinute, remaining: p.rateRemaining, reset: p.rateReset },
  };
}
