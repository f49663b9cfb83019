import type { CancellationPolicy } from '../catalog/import-format';
import type { Money } from '../kernel/money';
import type { Env } from '../kernel/tenant';
import type { AgeBracketApplied } from '../quotes/model';

export type BookingStatus = 'CONFIRMED' | 'CANCELLED' | 'COMPLETED';

export interface Cancellation {
  cancelled_at: string;
  cancelled_by: 'PARTNER' | 'SERVICE';
  reason: string | null;
  refund_amount: Money;
  fee_amount: Money;
  refund_percent: number;
  policy_code: string;
}

export interface BookingRecord {
  booking_number: string;
  partner_id: string;
  env: Env;
  partner_reference: string;
  customer_ref_hash: string;
  status: BookingStatus;
  quote_id: string;
  inventory: string;
  adventure: { id: string; slug: string; title: string };
  rate_pack: { id: string; name: string; booking_mode: string };
  travel_date: string;
  start_time: string | null;
  starts_at: string;
  contact: { first_name: string; last_name: string; email: string; phone: string };
  travelers: { first_name: string; last_name: string; age: number; age_bracket: AgeBracketApplied; price: Money }[];
  net_amount: Money;
  cancellation_policy: CancellationPolicy;
  payment: { payment_reference: string; paid_at: string; amount: Money; kid: string };
  created_at: string;
  updated_at: string;
  cancellation?: Cancellation;
  completed_at?: string;
  /** The period (YYYY-MM) of the settlement that holds the booking's line. */
  settlement_period?: string;
}

/** A booking's row in its tenant's list: what GET /bookings shows and filters on, traveler names as initials. */
export type BookingListRow = Pick<
  BookingRecord,
  'booking_number' | 'env' | 'partner_reference' | 'customer_ref_hash' | 'status' | 'quote_id' | 'travel_date' | 'start_time' | 'net_amount' | 'created_at'
> & {
  adventure_slug: string;
  /** Absent on rows written before the list showed titles: the list reads it from their booking. */
  adventure_title?: string;
  travelers: { initials: string }[];
};

export interface CreateBookingInput {
  quote_id: string;
  partner_reference: string;
  customer_reference: string;
  contact: { first_name: string; last_name: string; email: string; phone: string };
  travelers: { first_name: string; last_name: string }[];
  payment_confirmation: string;
}
