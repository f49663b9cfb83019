import type { Env } from '../kernel/tenant';
import type { Role } from './roles';

export interface Partner {
  partner_id: string;
  name: string;
  email?: string;
  /** Requests per minute per key; absent means the service default. */
  rate_limit_per_minute?: number;
  /** Number of enabled PARTNER_ADMIN members, kept in the same transactions that change roles. */
  admin_count: number;
  /** Sandbox catalog snapshot of this tenant, set by the weekly refresh. */
  sandbox_catalog?: string;
  /** Set by an operator (partner:disable): every key of the partner fails authentication until partner:enable. */
  disabled_at?: string;
  /** The legal identity printed on its invoices (settlements); `name` when not set. */
  legal_name?: string;
  legal_address?: string;
  /** Identifiant Commun de l'Entreprise (Morocco). */
  legal_ice?: string;
  created_at: string;
}

export interface Member {
  member_id: string;
  partner_id: string;
  email: string;
  role: Role;
  enabled: boolean;
  first_name: string;
  last_name: string;
  created_at: string;
  /**
   * The member's console user (Cognito `sub`). Equal to member_id for members
   * invited since the console; a member made before it keeps its id and is
   * linked to the user made for it (`admin members:link-console`).
   */
  identity_id?: string;
  /** Set by a disable; the member's keys and console sessions fail from the next request. */
  disabled_at?: string;
  /**
   * The last disable, which also signed the console user out everywhere: console
   * sessions signed in before it stay refused after an enable (a new sign-in works).
   */
  sessions_revoked_at?: string;
  /**
   * The sign-in (origin_jti) that signed out at sessions_revoked_at: auth_time has whole seconds, so
   * a sign-in of that very second is told apart from the one that ended by this, not by time.
   */
  sessions_revoked_id?: string;
}

export interface IdentityLink {
  identity_id: string;
  partner_id: string;
  member_id: string;
}

export interface ApiKeyRecord {
  key_id: string;
  partner_id: string;
  member_id: string;
  env: Env;
  secret_hash: string;
  created_at: string;
  revoked_at?: string;
  expires_at?: string;
  /** Member who issued the key through the API; absent for keys issued by operators. */
  issued_by?: string;
  /** What the partner calls the key (which system holds it); absent if it gave none. */
  name?: string;
}

/** A key as listed: its record, and when it was last used (from its rate-limit counters, never stored on the key). */
export type ApiKeyInUse = ApiKeyRecord & { last_used_at?: string };

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;

/**
 * How long a rate-limit window's counter outlives its window: it also says when its key was last used
 * (GET /v1/api-keys' last_used_at), so it is kept for as long as that answer should reach back.
 */
export const LAST_USE_RETENTION_DAYS = 90;
