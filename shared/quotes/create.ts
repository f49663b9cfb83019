import { randomUUID } from 'node:crypto';
import { inventoryStore } from '../catalog/inventory';
import { priceTravelers, type TravelerInput } from '../catalog/pricing';
import { catalogScopes } from '../catalog/scopes';
import { bookingWindowDays, checkSlot } from '../catalog/slots';
import { catalogStore } from '../catalog/store';
import { dataTable, type Seal, transact, unsealed } from '../db/client';
import type { ErrorDetailsInput } from '../http/schemas';
import { tenantNow } from '../kernel/clock';
import { ApiError } from '../kernel/errors';
import { countEvent } from '../kernel/metrics';
import { money } from '../kernel/money';
import type { Tenant } from '../kernel/tenant';
import { localDate } from '../kernel/time';
import { QUOTE_TTL_MS, type QuoteRecord } from './model';
import { quoteStore } from './store';

export interface CreateQuoteInput {
  rate_pack_id: string;
  start_date: string;
  start_time?: string | null;
  travelers: TravelerInput[];
}

const notSellable = (reason: string, message: string, details: ErrorDetailsInput = {}) =>
  new ApiError('quote.slot.not_sellable', message, { reason, ...details });

/** 422: fewer places left than travelers asked for. */
export const capacityInsufficient = (remaining: number, requested: number) =>
  new ApiError('quote.capacity.insufficient', `Only ${Math.max(0, remaining)} places are left for this slot.`, {
    remaining: Math.max(0, remaining),
    requested,
  });

/**
 * Prices a party for a slot with the shared pricing engine after checking
 * that the slot is sellable and has room, and locks the price for 30 minutes.
 */
export async function createQuote(t: Tenant, input: CreateQuoteInput, seal: Seal<QuoteRecord> = unsealed, now = tenantNow(t)): Promise<QuoteRecord> {
  const scopes = await catalogScopes(t);
  const ref = { date: input.start_date, start_time: input.start_time ?? null };
  // The seats read needs only the request, so it runs alongside the rate pack read.
  const [stored, inv] = await Promise.all([
    catalogStore.ratePack(scopes.content, input.rate_pack_id),
    inventoryStore.get(scopes.inventory, input.rate_pack_id, ref),
  ]);
  if (!stored)
    throw new ApiError('quote.rate_pack.not_found', `Rate pack ${input.rate_pack_id} does not exist in this catalog.`, { rate_pack_id: input.rate_pack_id });
  const { rate_pack: pack, adventure } = stored;
  if (ref.date < localDate(now)) {
    throw new ApiError('quote.start_date.in_past', `start_date ${ref.date} is in the past (today is ${localDate(now)} in Morocco).`, {
      start_date: ref.date,
      today: localDate(now),
    });
  }
  if (!adventure.active) throw notSellable('adventure_withdrawn', `${adventure.title} is no longer sold.`);
  const check = checkSlot(pack, ref, now);
  if (!check.ok) {
    switch (check.reason) {
      case 'start_time_required':
      case 'start_time_not_allowed':
      case 'unknown_start_time':
        throw new ApiError(
          'quote.start_time.invalid',
          pack.booking_mode === 'FLEXIBLE'
            ? 'This rate pack is FLEXIBLE: omit start_time or send null.'
            : `start_time must be one of the departures: ${pack.schedule.start_times.join(', ')}.`,
          { booking_mode: pack.booking_mode, start_times: pack.booking_mode === 'SCHEDULED' ? pack.schedule.start_times : [] },
        );
      case 'in_past':
        throw new ApiError('quote.start_date.in_past', `start_date ${ref.date} is in the past.`, { start_date: ref.date });
      case 'beyond_window':
        throw notSellable('beyond_booking_window', `Bookings open ${bookingWindowDays(pack)} days ahead; ${ref.date} is further out.`, {
          booking_window_days: bookingWindowDays(pack),
        });
      case 'not_operating':
        throw notSellable('not_operating', `${adventure.title} does not operate on ${ref.date}.`, { weekdays: pack.schedule.weekdays });
      case 'sales_closed':
        throw notSellable('sales_closed', 'Sales for this departure have closed.');
    }
  }
  const slot = (check as Extract<typeof check, { ok: true }>).slot;
  const priced = priceTravelers(pack, ref.date, input.travelers);
  if (!priced.ok) {
    if (priced.error === 'age_out_of_range') {
      throw new ApiError('quote.traveler.age_out_of_range', 'Some travelers fit no age bracket of this rate pack.', {
        travelers: priced.travelers,
        age_brackets: priced.brackets,
      });
    }
    if (priced.error === 'party_too_large') {
      throw new ApiError('quote.party.too_large', `This rate pack takes at most ${priced.max} travelers per booking.`, {
        max_travelers: priced.max,
        requested: priced.size,
      });
    }
    throw new ApiError('quote.party.too_small', `This rate pack needs at least ${priced.min} travelers.`, {
      min_travelers: priced.min,
      requested: priced.size,
    });
  }
  if (inv.closed) throw notSellable('slot_closed', 'This slot has been closed by the operator.');
  const remaining = slot.capacity - inv.sold;
  if (remaining < input.travelers.length) {
    throw capacityInsufficient(remaining, input.travelers.length);
  }

  const quote: QuoteRecord = {
    id: randomUUID(),
    partner_id: t.partnerId,
    env: t.env,
    inventory: scopes.inventory,
    adventure_id: adventure.id,
    adventure_slug: adventure.slug,
    adventure_title: adventure.title,
    rate_pack_id: pack.id,
    rate_pack_name: pack.name,
    booking_mode: pack.booking_mode,
    start_date: slot.date,
    start_time: slot.start_time,
    starts_at: slot.starts_at.toISOString(),
    travelers: priced.travelers.map((tr) => ({
      index: tr.index,
      age: tr.age,
      age_bracket: { code: tr.bracket.code, label: tr.bracket.label, min_age: tr.bracket.min_age, max_age: tr.bracket.max_age },
      price: money(tr.amount),
    })),
    net_amount: money(priced.total),
    cancellation_policy: pack.cancellation_policy,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + QUOTE_TTL_MS).toISOString(),
  };
  const cancelled = await transact(dataTable.client, { quote: quoteStore.put(quote), row: quoteStore.listRow(quote) }, [], seal.items(quote));
  if (cancelled) throw new Error(`quote creation was cancelled (${cancelled.codes.join(', ')})`);
  countEvent('QuotesCreated', t.env);
  return quote;
}
