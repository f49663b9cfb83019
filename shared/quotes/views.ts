import type { z } from 'zod';
import type { QuoteListRow, QuoteRecord } from './model';
import type { Quote, QuoteSummary } from './schemas';

export type QuoteSummaryView = z.input<typeof QuoteSummary>;
export type QuoteView = z.input<typeof Quote>;

export function quoteSummaryView(q: QuoteListRow, now = new Date()): QuoteSummaryView {
  return {
    id: q.id,
    adventure_slug: q.adventure_slug,
    rate_pack_id: q.rate_pack_id,
    start_date: q.start_date,
    start_time: q.start_time,
    net_amount: q.net_amount,
    expired: Date.parse(q.expires_at) <= now.getTime(),
    expires_at: q.expires_at,
    created_at: q.created_at,
  };
}

/** The full quote: its QuoteSummary plus what a booking needs to show. */
export function quoteView(q: QuoteRecord, now = new Date()): QuoteView {
  return {
    ...quoteSummaryView(q, now),
    adventure_id: q.adventure_id,
    adventure_title: q.adventure_title,
    rate_pack_name: q.rate_pack_name,
    booking_mode: q.booking_mode,
    travelers: q.travelers,
    cancellation_policy: q.cancellation_policy,
    test_mode: q.env === 'test',
    booking_number: q.booking_number ?? null,
  };
}

/** The quote's row in its tenant's list. */
export function quoteListRow(q: QuoteRecord): QuoteListRow {
  const { id, adventure_slug, rate_pack_id, start_date, start_time, net_amount, created_at, expires_at } = q;
  return { id, adventure_slug, rate_pack_id, start_date, start_time, net_amount, created_at, expires_at };
}
