import type { CancellationPolicy } from '../catalog/import-format';
import type { Money } from '../kernel/money';
import type { Env } from '../kernel/tenant';

export const QUOTE_TTL_MS = 30 * 60 * 1000;

export interface AgeBracketApplied {
  code: string;
  label: string;
  min_age: number;
  max_age: number;
}

/** A price-locked quote as stored. */
export interface QuoteRecord {
  id: string;
  partner_id: string;
  env: Env;
  inventory: string;
  adventure_id: string;
  adventure_slug: string;
  adventure_title: string;
  rate_pack_id: string;
  rate_pack_name: string;
  booking_mode: 'SCHEDULED' | 'FLEXIBLE';
  start_date: string;
  start_time: string | null;
  starts_at: string;
  travelers: { index: number; age: number; age_bracket: AgeBracketApplied; price: Money }[];
  net_amount: Money;
  cancellation_policy: CancellationPolicy;
  created_at: string;
  expires_at: string;
  /** Set when a booking consumes the quote. */
  booking_number?: string;
}

/** A quote's row in its tenant's list: what GET /quotes shows (none of it changes). */
export type QuoteListRow = Pick<
  QuoteRecord,
  'id' | 'adventure_slug' | 'rate_pack_id' | 'start_date' | 'start_time' | 'net_amount' | 'created_at' | 'expires_at'
>;
