import type { Scope } from './scopes';

export const ROLES = ['PARTNER_ADMIN', 'FINANCE', 'DEVELOPER', 'VIEWER'] as const;
export type Role = (typeof ROLES)[number];

const READ_ALL: Scope[] = ['meta:read', 'catalog:read', 'quotes:read', 'bookings:read', 'settlements:read', 'webhooks:read', 'reviews:read', 'team:read'];

/**
 * Role -> scopes, from the spec's role descriptions:
 * PARTNER_ADMIN full access; FINANCE settlements and bookings; DEVELOPER
 * catalog, quotes, bookings, webhooks and audit (plus reviews, which are
 * catalog content); VIEWER read-only. Every role may read its own key's
 * metadata (`meta:read`).
 */
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  PARTNER_ADMIN: [
    ...READ_ALL,
    'settlements:write',
    'quotes:write',
    'bookings:write',
    'webhooks:write',
    'reviews:write',
    'files:write',
    'team:manage',
    'keys:manage',
    'audit:read',
  ],
  FINANCE: ['meta:read', 'bookings:read', 'bookings:write', 'settlements:read', 'settlements:write'],
  DEVELOPER: [
    'meta:read',
    'catalog:read',
    'quotes:read',
    'quotes:write',
    'bookings:read',
    'bookings:write',
    'webhooks:read',
    'webhooks:write',
    'reviews:read',
    'reviews:write',
    'files:write',
    'audit:read',
  ],
  VIEWER: READ_ALL,
};

export function scopesFor(role: string): ReadonlySet<Scope> {
  return new Set(ROLE_SCOPES[role as Role] ?? []);
}
