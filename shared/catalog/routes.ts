import { dynamoLine } from '../db/grants';
import { defineRoutes } from '../http/route-def';
import { reviewPartitions } from '../reviews/keys';
import { catalogPartitions } from './keys';
import { AdventureDetail, AdventureListQuery, AdventurePage, Availability, AvailabilityQuery, SlugParams } from './schemas';

/** Catalog: browse adventures and their availability. */
export const catalogRoutes = defineRoutes({
  listAdventures: {
    method: 'GET',
    path: '/v1/adventures',
    handler: 'functions/catalog/list.ts',
    access: 'key',
    scope: 'catalog:read',
    tag: 'Catalog',
    summary: 'Browse the catalog',
    description:
      'Offset-based paging (meta.total_results, meta.page_number); sort by popularity, price or distance; filter by text, city, category, date and price.',
    request: { query: AdventureListQuery },
    responses: { 200: { description: 'A page of adventures.', schema: AdventurePage } },
    // The catalog's index (its head, search text and blocks) and the ratings: aggregates and deltas not folded yet.
    dynamo: {
      data: {
        GetItem: [catalogPartitions.content],
        BatchGetItem: [catalogPartitions.content, reviewPartitions.rating],
        Query: [catalogPartitions.content, reviewPartitions.ratingDelta],
      },
    },
    untested: {
      [dynamoLine('data', 'Query', catalogPartitions.content)]:
        'an index written before the compact format (no parts) is read by a Query of its chunks, until an import replaces it',
    },
  },
  getAdventure: {
    method: 'GET',
    path: '/v1/adventures/{slug}',
    handler: 'functions/catalog/get.ts',
    access: 'key',
    scope: 'catalog:read',
    tag: 'Catalog',
    summary: 'One adventure with its rate packs',
    description: 'The adventure with its rate packs: age brackets and their prices, cancellation policy, schedule and booking window.',
    request: { params: SlugParams },
    responses: { 200: { description: 'The adventure.', schema: AdventureDetail } },
    dynamo: { data: { GetItem: [catalogPartitions.content], BatchGetItem: [reviewPartitions.rating], Query: [reviewPartitions.ratingDelta] } },
  },
  getAvailability: {
    method: 'GET',
    path: '/v1/adventures/{slug}/availability',
    handler: 'functions/catalog/availability.ts',
    access: 'key',
    scope: 'catalog:read',
    tag: 'Catalog',
    summary: 'Bookable slots with seats left',
    description: 'Departures for SCHEDULED packs, days for FLEXIBLE packs, between two dates.',
    request: { params: SlugParams, query: AvailabilityQuery },
    responses: { 200: { description: 'The bookable slots.', schema: Availability } },
    // The adventure, and its rate packs' seats (INV#) over the range.
    dynamo: { data: { GetItem: [catalogPartitions.content], Query: [catalogPartitions.inventory] } },
  },
});
