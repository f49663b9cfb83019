import { describe, expect, it } from 'vitest';
import { accessKeys, accessPartitions } from '../../shared/access/keys';
import { bookingKeys, bookingPartitions } from '../../shared/bookings/keys';
import { catalogKeys, catalogPartitions, inventoryKeys } from '../../shared/catalog/keys';
import { clockKeys, clockPartitions } from '../../shared/clock/keys';
import { eventKeys, eventPartitions } from '../../shared/events/keys';
import { fileKeys, filePartitions } from '../../shared/files/keys';
import { platformKeys, platformPartitions } from '../../shared/platform/keys';
import { quoteKeys, quotePartitions } from '../../shared/quotes/keys';
import { requestLogKeys, requestLogPartitions } from '../../shared/request-logs/keys';
import { reviewKeys, reviewPartitions } from '../../shared/reviews/keys';
import { settlementKeys, settlementPartitions } from '../../shared/settlements/keys';
import { webhookKeys, webhookPartitions } from '../../shared/webhooks/keys';

describe('the partition patterns the route table grants', () => {
  /** Each pattern of the keys modules, with partition keys their builders make. */
  const samples: [string, string[]][] = [
    [accessPartitions.key, [accessKeys.apiKey('k1').pk]],
    [accessPartitions.partner, [accessKeys.partner('p1').pk, accessKeys.memberEmail('p1', 'a@b.c').pk, accessKeys.keyRowsPartition('p1', 'live')]],
    [accessPartitions.identity, [accessKeys.identity('s1').pk]],
    [accessPartitions.invitation, [accessKeys.invitation('a@b.c').pk]],
    [platformPartitions.rateCounters, [platformKeys.rateCounter('k1', 0).pk]],
    [platformPartitions.authFailures, [platformKeys.authFailures({ keyId: 'k1' }, 0).pk, platformKeys.authFailures({ address: '1.2.3.4' }, 0).pk]],
    [platformPartitions.signatures, [platformKeys.signature('k1', 'sig').pk]],
    [platformPartitions.idempotency, [platformKeys.idempotency('p1', 'test', 'key').pk]],
    [platformPartitions.audit, [platformKeys.auditPartition('p1', 'live')]],
    [platformPartitions.config, [platformKeys.config('cursor-key').pk]],
    [clockPartitions.clock, [clockKeys.clock('p1').pk]],
    [bookingPartitions.booking, [bookingKeys.booking('B1').pk]],
    [bookingPartitions.rows, [bookingKeys.listPartition('p1', 'test')]],
    [bookingPartitions.reference, [bookingKeys.partnerReference('p1', 'test', 'r1').pk]],
    [bookingPartitions.customerRefKey, [bookingKeys.customerRefKey('p1').pk]],
    [bookingPartitions.paymentKeys, [bookingKeys.paymentKey('p1', 'test', 'kid').pk]],
    [catalogPartitions.content, [catalogKeys.meta('PROD').pk, catalogKeys.sandboxPointer().pk]],
    [catalogPartitions.inventory, [inventoryKeys.partition(inventoryKeys.live, 'rp1'), inventoryKeys.partition(inventoryKeys.sandbox('p1'), 'rp1')]],
    [catalogPartitions.unavailable, [inventoryKeys.unavailable(inventoryKeys.live, 'a1', 'WITHDRAWN').pk]],
    [eventPartitions.events, [eventKeys.partition('p1', 'live')]],
    [eventPartitions.once, [eventKeys.once('e1').pk]],
    [filePartitions.file, [fileKeys.file('f1').pk]],
    [quotePartitions.quote, [quoteKeys.quote('q1').pk]],
    [quotePartitions.rows, [quoteKeys.listPartition('p1', 'live')]],
    [requestLogPartitions.day, [requestLogKeys.day('p1', 'live', '2026-11-24')]],
    [requestLogPartitions.byId, [requestLogKeys.byId('p1', 'live', 'r1').pk]],
    [reviewPartitions.review, [reviewKeys.review('r1', 'PROD').pk]],
    [reviewPartitions.bookingReviewable, [reviewKeys.bookingReviewable('B1', 'a1').pk]],
    [reviewPartitions.rating, [reviewKeys.ratingPartition('PROD')]],
    [reviewPartitions.ratingDelta, [reviewKeys.ratingDeltaPartition('PROD')]],
    [settlementPartitions.settlement, [settlementKeys.tenantPartition('p1', 'live')]],
    [settlementPartitions.ledger, [settlementKeys.ledgerPartition('p1', 'live', '2026-11')]],
    [settlementPartitions.series, [settlementKeys.seriesPartition('live', 'p1'), settlementKeys.seriesPartition('test', 'p1')]],
    [webhookPartitions.endpoints, [webhookKeys.endpointsPartition('p1', 'live')]],
    [webhookPartitions.subscribers, [webhookKeys.subscribersPartition('live', 'booking.confirmed')]],
    [webhookPartitions.delivery, [webhookKeys.delivery('d1').pk]],
    [webhookPartitions.attempt, [webhookKeys.attempt('a1').pk]],
    [webhookPartitions.endpointDeliveries, [webhookKeys.endpointDeliveriesPartition('p1', 'live', 'e1')]],
    [webhookPartitions.sendBudget, [webhookKeys.sendBudget('p1', 'live', 'e1', 0).pk, webhookKeys.sendBudget('p1', 'live', null, 0).pk]],
  ];
  /** dynamodb:LeadingKeys as IAM compares it (StringLike). */
  const like = (pattern: string, key: string) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(key);

  it("take exactly their own records: each builder's keys fall under its pattern and under no other", () => {
    for (const [pattern, keys] of samples) {
      for (const key of keys)
        expect(
          samples.filter(([p]) => like(p, key)).map(([p]) => p),
          key,
        ).toEqual([pattern]);
    }
  });
});
