import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '../aws';
import { dataTableName } from '../config';
import { clean, queryPage } from '../db';
import { ApiError, notFound } from '../errors';
import type { Principal } from '../http/context';
import { money, type Money } from '../money';
import { catalogRepository, inventoryRepository } from '../catalog/repository';
import { priceTravelers, type TravelerInput } from '../catalog/pricing';
import { scopesFor } from '../catalog/service';
import { checkSlot, slotKey } from '../catalog/slots';
import { localDate } from '../catalog/time';

export const QUOTE_TTL_MS = 30 * 60 * 1000;

export interface QuoteRecord {
  id: string;
  partner_id: string;
  env: 'live' | 'test';
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
  travelers: { index: number; age: number; age_bracket: { code: string; label: string; min_age: number; max_age: number }; price: Money }[];
  net_amount: Money;
  cancellation_policy: unknown;
  created_at: string;
  expires_at: string;
  /** Set when a booking consumes the quote. */
  booking_number?: string;
}

export interface CreateQuoteInput {
  rate_pack_id: string;
  start_date: string;
  start_time?: string | null;
  travelers: TravelerInput[];
}

const notSellable = (reason: string, message: string, details: Record<string, unknown> = {}) =>
  new ApiError('quote.slot.not_sellable', message, { reason, ...details });

/**
 * Prices a party for a slot with the shared pricing engine after checking
 * that the slot is sellable and has room, and locks the price for 30 minutes.
 */
export async function createQuote(p: Principal, input: CreateQuoteInput, now = new Date()): Promise<QuoteRecord> {
  const scopes = await scopesFor(p);
  const ref = { date: input.start_date, start_time: input.start_time ?? null };
  // The seats read needs only the request, so it runs alongside the rate pack read.
  const [stored, inv] = await Promise.all([
    catalogRepository.ratePack(scopes.content, input.rate_pack_id),
    inventoryRepository.get(scopes.inventory, input.rate_pack_id, slotKey(ref)),
  ]);
  if (!stored) throw new ApiError('quote.rate_pack.not_found', `Rate pack ${input.rate_pack_id} does not exist in this catalog.`, { rate_pack_id: input.rate_pack_id });
  const { rate_pack: pack, adventure } = stored;
  if (ref.date < localDate(now)) {
    throw new ApiError('quote.start_date.in_past', `start_date ${ref.date} is in the past (today is ${localDate(now)} in Morocco).`, { start_date: ref.date, today: localDate(now) });
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
        throw notSellable('beyond_booking_window', `Bookings open ${pack.booking_window_days ?? 60} days ahead; ${ref.date} is further out.`, {
          booking_window_days: pack.booking_window_days ?? 60,
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
      throw new ApiError('quote.traveler.age_out_of_range', 'Some travelers fit no age bracket of this rate pack.', { travelers: priced.travelers, age_brackets: priced.brackets });
    }
    if (priced.error === 'party_too_large') {
      throw new ApiError('quote.party.too_large', `This rate pack takes at most ${priced.max} travelers per booking.`, { max_travelers: priced.max, requested: priced.size });
    }
    throw new ApiError('quote.party.too_small', `This rate pack needs at least ${priced.min} travelers.`, { min_travelers: priced.min, requested: priced.size });
  }
  if (inv.closed) throw notSellable('slot_closed', 'This slot has been closed by the operator.');
  const remaining = slot.capacity - inv.sold;
  if (remaining < input.travelers.length) {
    throw new ApiError('quote.capacity.insufficient', `Only ${Math.max(0, remaining)} places are left for this slot.`, { remaining: Math.max(0, remaining), requested: input.travelers.length });
  }

  const quote: QuoteRecord = {
    id: randomUUID(),
    partner_id: p.partnerId,
    env: p.env,
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
    travelers: priced.travelers.map((t) => ({
      index: t.index,
      age: t.age,
      age_bracket: { code: t.bracket.code, label: t.bracket.label, min_age: t.bracket.min_age, max_age: t.bracket.max_age },
      price: money(t.amount),
    })),
    net_amount: money(priced.total),
    cancellation_policy: pack.cancellation_policy,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + QUOTE_TTL_MS).toISOString(),
  };
  await ddb.send(
    new PutCommand({
      TableName: dataTableName(),
      Item: {
        pk: `QUOTE#${quote.id}`,
        sk: 'QUOTE',
        type: 'quote',
        ...quote,
        gsi1pk: `QUOTES#${p.partnerId}#${p.env}`,
        gsi1sk: `${quote.created_at}#${quote.id}`,
        // Finds the open quotes on an adventure or slot when it stops being sellable.
        gsi2pk: `QADV#${scopes.inventory}#${adventure.id}`,
        gsi2sk: `${slotKey(slot)}#${quote.id}`,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return quote;
}

/** The full quote: its QuoteSummary plus what a booking needs to show. */
export function quoteView(q: QuoteRecord, now = new Date()) {
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

export function quoteSummaryView(q: QuoteRecord, now = new Date()) {
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

/** A quote of this partner and environment; anything else is 404. */
export async function getQuote(p: Principal, id: string): Promise<QuoteRecord> {
  const r = await ddb.send(new GetCommand({ TableName: dataTableName(), Key: { pk: `QUOTE#${id}`, sk: 'QUOTE' } }));
  const q = r.Item ? clean<QuoteRecord>(r.Item) : undefined;
  if (!q || q.partner_id !== p.partnerId || q.env !== p.env) throw notFound('Quote', id);
  return q;
}

/** Most recent first; `after` is the index sort key of the last row of the previous page. */
export async function listQuotes(p: Principal, limit: number, after?: string) {
  const gsi1pk = `QUOTES#${p.partnerId}#${p.env}`;
  const { items, hasMore } = await queryPage(
    { TableName: dataTableName(), IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :p', ExpressionAttributeValues: { ':p': gsi1pk }, ScanIndexForward: false },
    limit,
    after ? { gsi1pk, gsi1sk: after, pk: `QUOTE#${after.split('#')[1]}`, sk: 'QUOTE' } : undefined,
  );
  return { items: items.map((i) => clean<QuoteRecord>(i)), next: hasMore ? (items.at(-1)!.gsi1sk as string) : undefined };
}
