import * as z from 'zod';
import type { EventType } from './types';

/**
 * The `data` of each event type, exactly: what the code that records an event
 * passes (recordEvent is typed by these) and what POST /webhooks/{id}/test
 * sends as its example. Strict, so an example with a field the real event
 * lacks, or without one it has, fails the unit test.
 */
const Money = z.object({ amount: z.string().regex(/^-?\d+\.\d{2}$/), currency: z.literal('MAD') }).strict();
const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const Time = z.string().regex(/^\d{2}:\d{2}$/);

export const UNAVAILABLE_REASONS = ['WITHDRAWN', 'SLOT_CLOSED', 'RATE_PACK_REMOVED', 'SOLD_OUT', 'SANDBOX_REFRESH'] as const;
export type UnavailableReason = (typeof UNAVAILABLE_REASONS)[number];

const CalendarDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const EVENT_PAYLOADS = {
  'booking.confirmed': z
    .object({
      booking_number: z.string(),
      partner_reference: z.string(),
      status: z.literal('CONFIRMED'),
      travel_date: Day,
      start_time: Time.nullable(),
      quote_id: z.uuid(),
      adventure_slug: z.string(),
    })
    .strict(),
  'booking.cancelled': z
    .object({
      booking_number: z.string(),
      partner_reference: z.string(),
      status: z.literal('CANCELLED'),
      travel_date: Day,
      cancelled_by: z.enum(['PARTNER', 'SERVICE']),
      refund_amount: Money,
      cancelled_at: z.iso.datetime(),
    })
    .strict(),
  'booking.completed': z
    .object({
      booking_number: z.string(),
      partner_reference: z.string(),
      status: z.literal('COMPLETED'),
      travel_date: Day,
      completed_at: z.iso.datetime(),
    })
    .strict(),
  'settlement.issued': z
    .object({
      settlement_id: z.uuid(),
      number: z.string(),
      status: z.literal('ISSUED'),
      period_start: CalendarDay,
      period_end: CalendarDay,
      total_due: Money,
      issue_date: CalendarDay,
      due_date: CalendarDay,
      booking_count: z.number().int(),
      line_count: z.number().int(),
    })
    .strict(),
  'settlement.paid': z
    .object({
      settlement_id: z.uuid(),
      number: z.string(),
      status: z.literal('PAID'),
      paid_at: z.iso.datetime(),
      transfer_reference: z.string(),
      amount_received: Money,
    })
    .strict(),
  'review.moderated': z
    .object({
      review_id: z.uuid(),
      reviewable_type: z.enum(['EXPERIENCE', 'TRIP', 'AGENCY']),
      reviewable_id: z.uuid(),
      booking_id: z.uuid(),
      booking_number: z.string(),
      partner_reference: z.string(),
      action: z.enum(['HIDDEN', 'RESTORED', 'DELETED']),
      moderated_at: z.iso.datetime(),
    })
    .strict(),
  'adventure.unavailable': z
    .object({
      adventure_id: z.uuid(),
      adventure_slug: z.string(),
      rate_pack_id: z.uuid().nullable(),
      date: Day.nullable(),
      start_time: Time.nullable(),
      reason: z.enum(UNAVAILABLE_REASONS),
      quote_ids: z.array(z.uuid()).max(100),
      quote_count: z.number().int().min(0),
    })
    .strict(),
} as const satisfies Record<EventType, z.ZodType>;

/** The `data` of an event of type T. */
export type EventData<T extends EventType> = z.input<(typeof EVENT_PAYLOADS)[T]>;
