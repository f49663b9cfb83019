import * as z from 'zod';
import { Environment, Role } from '../access/schemas';
import { page } from '../http/schemas';

export { Health } from '../http/schemas';

export const Me = z
  .object({
    partner: z.object({ id: z.uuid(), name: z.string() }),
    environment: Environment,
    test_mode: z.boolean(),
    key: z.object({ id: z.string().describe('Key id: the prefix after sk_live_ / sk_test_'), created_at: z.iso.datetime() }),
    member: z.object({ id: z.uuid(), email: z.string(), role: Role }),
    scopes: z.array(z.string()),
    rate_limit: z.object({ limit_per_minute: z.number().int(), remaining: z.number().int(), reset: z.number().int() }),
  })
  .meta({ id: 'Me' });

export const AuditEvent = z
  .object({
    id: z.string(),
    occurred_at: z.iso.datetime(),
    member_id: z.uuid(),
    key_prefix: z.string(),
    environment: Environment,
    method: z.string(),
    path: z.string(),
    status: z.number().int(),
    request_id: z.string(),
    idempotent_replayed: z.boolean(),
  })
  .meta({ id: 'AuditEvent' });
export const AuditEventPage = page(AuditEvent).meta({ id: 'AuditEventPage' });
