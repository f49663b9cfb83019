/** Every scope a route may require; roles grant them (roles.ts). */
export const SCOPES = [
  'meta:read',
  'catalog:read',
  'quotes:read',
  'quotes:write',
  'bookings:read',
  'bookings:write',
  'settlements:read',
  'settlements:write',
  'webhooks:read',
  'webhooks:write',
  'reviews:read',
  'reviews:write',
  'files:write',
  'team:read',
  'team:manage',
  'keys:manage',
  'audit:read',
] as const;
export type Scope = (typeof SCOPES)[number];
