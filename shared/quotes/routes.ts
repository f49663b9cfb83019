import { catalogPartitions } from '../catalog/keys';
import { defineRoutes } from '../http/route-def';
import { pageQuery } from '../http/schemas';
import { quotePartitions } from './keys';
import { CreateQuoteBody, Quote, QuoteIdParams, QuotePage } from './schemas';

/** Quotes: price-locked for 30 minutes, ahead of booking. */
export const quoteRoutes = defineRoutes({
  createQuote: {
    method: 'POST',
    path: '/v1/quotes',
    handler: 'functions/quotes/create.ts',
    access: 'key',
    scope: 'quotes:write',
    tag: 'Quotes',
    summary: 'Price a party for a slot and lock the price for 30 minutes',
    description:
      'Checks that the slot is sellable and has the seats, prices each traveler by the age bracket of their age on the travel date, and locks the price for 30 minutes (expires_at). Book it with POST /bookings.',
    request: { body: CreateQuoteBody },
    examples: {
      request: { rate_pack_id: 'be09ea34-189d-415d-b469-5c09c792ae21', start_date: '2026-12-01', start_time: '09:00', travelers: [{ age: 35 }, { age: 8 }] },
    },
    errors: [
      'quote.rate_pack.not_found',
      'quote.start_date.in_past',
      'quote.start_time.invalid',
      'quote.slot.not_sellable',
      'quote.party.too_large',
      'quote.party.too_small',
      'quote.traveler.age_out_of_range',
      'quote.capacity.insufficient',
    ],
    responses: { 201: { description: 'The quote.', schema: Quote } },
    // The rate pack and the slot's seats; the quote and its row in the partner's list.
    dynamo: { data: { GetItem: [catalogPartitions.content, catalogPartitions.inventory], PutItem: [quotePartitions.quote, quotePartitions.rows] } },
  },
  listQuotes: {
    method: 'GET',
    path: '/v1/quotes',
    handler: 'functions/quotes/list.ts',
    access: 'key',
    scope: 'quotes:read',
    tag: 'Quotes',
    summary: 'Your quotes, most recent first',
    description: 'Quote summaries of the environment of the calling key, most recent first, keyset-paged.',
    request: { query: pageQuery },
    responses: { 200: { description: 'A page of quotes.', schema: QuotePage } },
    dynamo: { data: { Query: [quotePartitions.rows] } },
  },
  getQuote: {
    method: 'GET',
    path: '/v1/quotes/{id}',
    handler: 'functions/quotes/get.ts',
    access: 'key',
    scope: 'quotes:read',
    tag: 'Quotes',
    summary: 'One quote',
    description:
      'The full quote: travelers with their age bracket and price, net_amount and cancellation policy; expired is computed now, and booking_number is set once a booking consumed the quote.',
    request: { params: QuoteIdParams },
    responses: { 200: { description: 'The quote; expired is computed now.', schema: Quote } },
    dynamo: { data: { GetItem: [quotePartitions.quote] } },
  },
});
