import { createHmac, randomBytes } from 'node:crypto';

/** Crockford base32 without I, L, O, U: readable over the phone. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A human-friendly booking number, e.g. PTB-7K3M-Q9XD (40 random bits; uniqueness is enforced by a conditional write). */
export function newBookingNumber(): string {
  const bytes = randomBytes(8);
  const chars = Array.from(bytes, (b) => ALPHABET[b % 32]).join('');
  return `PTB-${chars.slice(0, 4)}-${chars.slice(4, 8)}`;
}

export const BOOKING_NUMBER_RE = /^PTB-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;

/** The bank's customer id, pseudonymized under the partner's own key; only this hash is stored. */
export function customerRefHash(partnerKey: Buffer, customerReference: string): string {
  return createHmac('sha256', partnerKey).update(customerReference, 'utf8').digest('hex');
}

/** "Amina", "El Idrissi" -> "A. E." */
export function initials(firstName: string, lastName: string): string {
  const i = (s: string) => (s.trim() ? `${[...s.trim()][0]!.toUpperCase()}.` : '');
  return [i(firstName), i(lastName)].filter(Boolean).join(' ');
}

export interface PolicyRule {
  hours_before: number;
  refund_percent: number;
}

export interface RefundPreview {
  hours_before_start: number;
  applied_rule: PolicyRule | null;
  refund_percent: number;
  /** Minor units. */
  refundable: number;
  fee: number;
  /** Until when this preview holds: the moment the next threshold is crossed (null once nothing is refundable any more). */
  valid_until: Date | null;
}

/**
 * The refund a cancellation gets now: the rule with the largest threshold
 * that the time left before the start still reaches applies (thresholds are
 * inclusive); after the start, nothing is refunded. Refunds round down to
 * the centime, the fee is the rest, so refund + fee = amount.
 */
export function refundPreview(amount: number, rules: PolicyRule[], startsAt: Date, now: Date): RefundPreview {
  const hoursLeft = (startsAt.getTime() - now.getTime()) / 3_600_000;
  const applicable = hoursLeft < 0 ? [] : rules.filter((r) => hoursLeft >= r.hours_before).sort((a, b) => b.hours_before - a.hours_before);
  const rule = applicable[0] ?? null;
  const percent = rule?.refund_percent ?? 0;
  const refundable = Math.floor((amount * percent) / 100);
  const validUntil = rule ? new Date(startsAt.getTime() - rule.hours_before * 3_600_000) : null;
  return {
    hours_before_start: Math.max(0, Math.floor(hoursLeft * 10) / 10),
    applied_rule: rule,
    refund_percent: percent,
    refundable,
    fee: amount - refundable,
    valid_until: validUntil,
  };
}
