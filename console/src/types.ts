import type { components } from '../../sdk/src/generated/schema';

/** The API's resources, as the SDK types them (generated from the OpenAPI document of the route table). */
type S = components['schemas'];

export type Role = S['Role'];
export type Money = S['Money'];
export type Booking = S['Booking'];
export type BookingListItem = S['BookingListItem'];
export type BookingStatus = BookingListItem['status'];
export type CancellationQuote = S['CancellationQuote'];
export type Settlement = S['Settlement'];
export type SettlementLine = S['SettlementLine'];
export type WebhookEndpoint = S['WebhookEndpoint'];
export type WebhookDelivery = S['WebhookDelivery'];
export type WebhookDeliveryDetail = S['WebhookDeliveryDetail'];
export type WebhookTestResult = S['WebhookTestResult'];
export type EventType = S['EventType'];
export type Review = S['Review'];
/** An audit event: `via` console (a signed-in member) or api_key; `key_prefix` null through the console. */
export type AuditEvent = Omit<S['AuditEvent'], 'key_prefix'> & { key_prefix: string | null; via?: 'api_key' | 'console' };
export type PageMeta = S['PageMeta'];
export type RequestLogEntry = S['RequestLogEntry'];
export type RequestLogBody = S['RequestLogBody'];
export type SandboxClock = S['SandboxClock'];

/** GET /me. For a console session there is no key (`key` null), `via` is console and `session` says when the member signed in. */
export type Me = Omit<S['Me'], 'key'> & { key: S['Me']['key'] | null; via?: 'api_key' | 'console'; session?: { signed_in_at: string } };

/** A team member: `status` INVITED until the first sign-in, then ACTIVE, or DISABLED. */
export type TeamMember = S['TeamMember'];

/** An API key; `last_used_at` when the API reports it. */
export type ApiKey = S['ApiKey'];
export type ApiKeyWithSecret = S['ApiKeyWithSecret'];

export const ROLES: readonly Role[] = ['PARTNER_ADMIN', 'FINANCE', 'DEVELOPER', 'VIEWER'];

export const ROLE_NAMES: Record<Role, string> = {
  PARTNER_ADMIN: 'Administrator',
  FINANCE: 'Finance',
  DEVELOPER: 'Developer',
  VIEWER: 'Viewer',
};
