import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchWrite } from '../db/batch';
import { dataTable, type Table, type TransactItem } from '../db/client';
import { batchGet, clean, type Item, queryAll, queryPage } from '../db/query';
import { reviewKeys } from './keys';
import type { ReviewRecord } from './model';

export interface ReviewFilter {
  reviewableId?: string;
  reviewableType?: string;
  minRating?: number;
}

/** Reviews, their once-per-booking markers and the rating aggregates. */
export function makeReviewStore(table: Table = dataTable) {
  const TableName = () => table.name();
  const itemOf = (r: ReviewRecord): Item => ({
    ...reviewKeys.review(r.id, r.space),
    type: 'review',
    ...r,
    ...(r.status === 'VISIBLE' ? reviewKeys.visible(r.space, r.reviewable_id, r.created_at, r.id) : {}),
  });

  const store = {
    /** The copies of a review in the given spaces (at most one is the tenant's). */
    async inSpaces(id: string, spaces: string[]): Promise<ReviewRecord[]> {
      return (
        await batchGet(
          table,
          spaces.map((s) => reviewKeys.review(id, s)),
        )
      ).map((i) => clean<ReviewRecord>(i));
    },

    /** Every copy of a review (operators: the production one is moderated, snapshot clones are not). */
    async copies(id: string): Promise<ReviewRecord[]> {
      const items = await queryAll(table, {
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': reviewKeys.copiesPartition(id) },
        ConsistentRead: true,
      });
      return items.map((i) => clean<ReviewRecord>(i));
    },

    /** A new review (fails if the id exists in that space). */
    create(r: ReviewRecord): TransactItem {
      return { Put: { TableName: TableName(), Item: itemOf(r), ConditionExpression: 'attribute_not_exists(pk)' } };
    },

    /** The next version of a review, written only over the version it was read at; the index keys follow its status. */
    replace(r: ReviewRecord, readVersion: number): TransactItem {
      return {
        Put: { TableName: TableName(), Item: itemOf(r), ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': readVersion } },
      };
    },

    /** Marks the booking and reviewable as reviewed: fails if it already was. */
    once(bookingNumber: string, reviewableId: string, reviewId: string): TransactItem {
      return {
        Put: {
          TableName: TableName(),
          Item: { ...reviewKeys.bookingReviewable(bookingNumber, reviewableId), review_id: reviewId },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    },

    /** Adds to a reviewable's rating aggregate in a space (an atomic counter update, in the change's transaction). */
    rate(space: string, reviewableId: string, delta: { sum: number; count: number }): TransactItem | undefined {
      if (delta.sum === 0 && delta.count === 0) return undefined;
      return {
        Update: {
          TableName: TableName(),
          Key: reviewKeys.rating(space, reviewableId),
          UpdateExpression: 'ADD rating_sum :s, rating_count :c',
          ExpressionAttributeValues: { ':s': delta.sum, ':c': delta.count },
        },
      };
    },

    /** The aggregates of some reviewables in some spaces, summed per reviewable. */
    async ratings(spaces: string[], reviewableIds: string[]): Promise<Map<string, { sum: number; count: number }>> {
      const keys = spaces.flatMap((s) => reviewableIds.map((id) => reviewKeys.rating(s, id)));
      const out = new Map<string, { sum: number; count: number }>();
      for (let i = 0; i < keys.length; i += 100) {
        for (const item of await batchGet(table, keys.slice(i, i + 100))) {
          const acc = out.get(item.sk as string) ?? { sum: 0, count: 0 };
          acc.sum += Number(item.rating_sum ?? 0);
          acc.count += Number(item.rating_count ?? 0);
          out.set(item.sk as string, acc);
        }
      }
      return out;
    },

    /**
     * A keyset page of one space's visible reviews, newest first: those sorted
     * before `before` (the sort key of the last review shown), with the filters.
     */
    async page(space: string, f: ReviewFilter, limit: number, before?: string): Promise<{ items: ReviewRecord[]; hasMore: boolean }> {
      const [index, partition] = f.reviewableId ? ['gsi2', reviewKeys.reviewablePartition(space, f.reviewableId)] : ['gsi1', reviewKeys.spacePartition(space)];
      const values: Record<string, unknown> = { ':p': partition };
      const filters: string[] = [];
      if (before !== undefined) values[':b'] = before;
      if (f.reviewableType) {
        filters.push('reviewable_type = :t');
        values[':t'] = f.reviewableType;
      }
      if (f.minRating !== undefined && f.minRating > 1) {
        filters.push('rating >= :m');
        values[':m'] = f.minRating;
      }
      const { items, hasMore } = await queryPage(
        table,
        {
          IndexName: index,
          KeyConditionExpression: `${index}pk = :p${before !== undefined ? ` AND ${index}sk < :b` : ''}`,
          ExpressionAttributeValues: values,
          ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
          ScanIndexForward: false,
        },
        limit,
      );
      return { items: items.map((i) => clean<ReviewRecord>(i)), hasMore };
    },

    /** The visible reviews of a space (operators: cloning consumer reviews into a snapshot). */
    async allVisible(space: string): Promise<ReviewRecord[]> {
      const items = await queryAll(table, {
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': reviewKeys.spacePartition(space) },
      });
      return items.map((i) => clean<ReviewRecord>(i));
    },

    /** Bulk load of reviews (seed import, snapshot clone, bench), with their aggregates set to what they sum to. */
    async load(reviews: ReviewRecord[]): Promise<void> {
      await batchWrite(
        table,
        reviews.map((r) => ({ PutRequest: { Item: itemOf(r) } })),
      );
    },

    /** Sets aggregates outright (after a bulk load, computed from what was loaded). */
    async setRatings(space: string, totals: Map<string, { sum: number; count: number }>): Promise<void> {
      await batchWrite(
        table,
        [...totals].map(([id, t]) => ({ PutRequest: { Item: { ...reviewKeys.rating(space, id), type: 'rating', rating_sum: t.sum, rating_count: t.count } } })),
      );
    },

    /** Sums the visible reviews of a reviewable in a space (operators, after a bulk load; a Query on gsi2). */
    async recount(space: string, reviewableId: string): Promise<{ sum: number; count: number }> {
      let sum = 0;
      let count = 0;
      let ExclusiveStartKey: Item | undefined;
      do {
        const r = await table.client.send(
          new QueryCommand({
            TableName: TableName(),
            IndexName: 'gsi2',
            KeyConditionExpression: 'gsi2pk = :p',
            ExpressionAttributeValues: { ':p': reviewKeys.reviewablePartition(space, reviewableId) },
            ProjectionExpression: 'rating',
            ExclusiveStartKey,
          }),
        );
        for (const i of r.Items ?? []) {
          sum += Number(i.rating);
          count++;
        }
        ExclusiveStartKey = r.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return { sum, count };
    },
  };
  return store;
}

export const reviewStore = makeReviewStore();
