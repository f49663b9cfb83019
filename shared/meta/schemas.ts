import * as z from 'zod';
import { Environment, Role } from '../access/schemas';
import { personal, pub } from '../http/data-class';
import { KeyId, keyIdAlias, page } from '../http/schemas';

export { Health } from '../http/schemas';

export const Me = z
  .object({
    partner: z.object({ id: pub(z.uuid()), name: pub(z.string()) }),
    environment: Environment,
    test_mode: pub(z.boolean()),
    via: pub(z.enum(['api_key', 'console'])).describe('How the caller authenticated: an API key, or a console session (a signed-in member).'),
    key: z
      .object({
        key_id: KeyId,
        id: keyIdAlias('key_id'),
        created_at: pub(z.iso.datetime()),
      })
      .nullable()
      .describe('The calling key; null for a console session.'),
    session: z
      .object({ signed_in_at: pub(z.iso.datetime()).describe('Sign-in time (password and TOTP); live writes need one of the last 15 minutes.') })
      .optional()
      .describe('Console sessions only.'),
    member: z.object({ id: pub(z.uuid()), email: personal(z.string()), role: Role }),
    scopes: z.array(pub(z.string())),
    rate_limit: z.object({ limit_per_minute: pub(z.number().int()), remaining: pub(z.number().int()), reset: pub(z.number().int()) }),
  })
  .meta({ id: 'Me' });

export const SignedOut = z
  .object({
    member_id: pub(z.uuid()),
    sessions_ended_at: pub(z.iso.datetime()).describe('Console sessions signed in until this instant answer 401 auth.session.invalid from now on.'),
  })
  .meta({ id: 'SignedOut' });

export const AuditEvent = z
  .object({
    id: pub(z.string()),
    occurred_at: pub(z.iso.datetime()),
    member_id: pub(z.uuid()),
    key_id: KeyId.nullable().describe('The key that made the write (its key id); null when a member made it through the console.'),
    key_prefix: keyIdAlias('key_id', 'nullable'),
    via: pub(z.enum(['api_key', 'console'])).describe('api_key, or console: a signed-in member through the partner console.'),
    environment: Environment,
    method: pub(z.string()),
    // The path as sent: a segment may be anything a caller put there.
    path: personal(z.string()),
    status: pub(z.number().int()),
    request_id: pub(z.string()),
    idempotent_replayed: pub(z.boolean()),
  })
  .meta({ id: 'AuditEvent' });
export const AuditEventPage = page(AuditEvent).meta({ id: 'AuditEventPage' });

/** A partner guide's name: its Markdown file's name in docs/guides without .md (infra/guides.ts). */
export const GUIDE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const GuideParams = z.object({
  name: z
    .string()
    .regex(GUIDE_NAME, 'a guide name like webhooks')
    .meta({ description: 'The guide, e.g. getting-started, bookings, webhooks.', examples: ['webhooks'], dataClass: 'public' }),
});
