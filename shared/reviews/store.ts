import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchWrite } from '../db/batch';
import { dataTable, type Table, type TransactItem, transact } from '../db/client';
import { isConditionFailed } from '../db/errors';
import { batchGet, clean, type Item, queryAll, queryPage, queryPages } from '../db/query';
import type { Env } from '../kernel/tenant';
import { reviewKeys } from './keys';
import type { ReviewRecord } from './model';

export interface ReviewFilter {
  reviewableId?: string;
  reviewableType?: string;
  minRating?: number;
}

/** Whether a review passes a list's filters (the own reviews' rows are filtered on their records). */
const passes = (r: ReviewRecord, f: ReviewFilter) =>
  (f.reviewableId === undefined || r.reviewable_id === f.reviewableId) &&
  (f.reviewableType === undefined || r.reviewable_type === f.reviewableType) &&
  (f.minRating === undefined || r.rating >= f.minRating);

/** Reviews, their once-per-booking markers, the rating aggregates and the changes' deltas not folded into them yet. */
export function makeReviewStore(table: Table = dataTable) {
  const TableName = () => table.name();
  const itemOf = (r: ReviewRecord): Item => ({
    ...reviewKeys.review(r.id, r.space),
    type: 'review',
    ...r,
    ...(r.status === 'VISIBLE' ? reviewKeys.visible(r.space, r.reviewable_id, r.created_at, r.id) : {}),
  });

  /** A partner review's row in its partner's own list (what ownPage reads). */
  const ownRowItem = (r: ReviewRecord): Item => ({
    ...reviewKeys.ownRow(r.partner_id!, r.env!, r.created_at, r.id),
    type: 'review_row',
    review_id: r.id,
    space: r.space,
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

    /** A new partner review's row in its partner's own list, in the review's transaction. */
    ownRow(r: ReviewRecord): TransactItem {
      return { Put: { TableName: TableName(), Item: ownRowItem(r), ConditionExpression: 'attribute_not_exists(pk)' } };
    },

    /** The row of a partner review written before the rows (data:own-reviews): true if it was missing. */
    async addOwnRow(r: ReviewRecord): Promise<boolean> {
      try {
        await table.client.send(new PutCommand({ TableName: TableName(), Item: ownRowItem(r), ConditionExpression: 'attribute_not_exists(pk)' }));
        return true;
      } catch (e) {
        if (isConditionFailed(e)) return false;
        throw e;
      }
    },

    /**
     * A keyset page of a partner's own reviews in one environment, newest first, HIDDEN ones included, DELETED
     * ones left out: its rows before `before` (strongly consistent), each read with its record, which the
     * filters apply to. Reads on until it holds limit + 1, so hasMore is exact.
     */
    async ownPage(partnerId: string, env: Env, f: ReviewFilter, limit: number, before?: string): Promise<{ items: ReviewRecord[]; hasMore: boolean }> {
      const out: ReviewRecord[] = [];
      const pages = queryPages(table, {
        KeyConditionExpression: `pk = :p${before !== undefined ? ' AND sk < :b' : ''}`,
        ExpressionAttributeValues: { ':p': reviewKeys.ownPartition(partnerId, env), ...(before !== undefined ? { ':b': before } : {}) },
        ConsistentRead: true,
        ScanIndexForward: false,
        Limit: limit + 1,
      });
      for await (const rows of pages) {
        const records = new Map<string, ReviewRecord>();
        for (let i = 0; i < rows.length; i += 100) {
          const items = await batchGet(
            table,
            rows.slice(i, i + 100).map((row) => reviewKeys.review(row.review_id as string, row.space as string)),
          );
          for (const item of items) records.set(item.id as string, clean<ReviewRecord>(item));
        }
        for (const row of rows) {
          const r = records.get(row.review_id as string);
          if (r && r.status !== 'DELETED' && passes(r, f)) out.push(r);
        }
        if (out.length > limit) break;
      }
      return { items: out.slice(0, limit), hasMore: out.length > limit };
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

    /**
     * A change's contribution to a reviewable's rating, in the change's
     * transaction: a delta item of its own (keyed by the review's id and new
     * version), never the aggregate, which concurrent reviews of the same
     * reviewable would all write. `fold` adds the deltas to the aggregate
     * afterwards; `ratings` counts the ones not folded yet.
     */
    rate(space: string, reviewableId: string, delta: { sum: number; count: number }, change: { reviewId: string; version: number }): TransactItem | undefined {
      if (delta.sum === 0 && delta.count === 0) return undefined;
      return {
        Put: {
          TableName: TableName(),
          Item: {
            ...reviewKeys.ratingDelta(space, reviewableId, change.reviewId, change.version),
            type: 'rating_delta',
            reviewable_id: reviewableId,
            rating_sum: delta.sum,
            rating_count: delta.count,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    },

    /**
     * Folds a reviewable's pending deltas into its aggregate: one transaction
     * deletes them and adds them to the aggregate, whose `fold_version` moves
     * on (conditioned on the version read, so two folds never add a delta
     * twice). Runs after a review change commits, outside its transaction;
     * a fold that loses a race leaves its deltas to the next one. Resolves
     * to the number of deltas folded.
     */
    async fold(space: string, reviewableId: string): Promise<number> {
      const pending = await queryAll(table, {
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :pre)',
        ExpressionAttributeValues: { ':p': reviewKeys.ratingDeltaPartition(space), ':pre': reviewKeys.ratingDeltaPrefix(reviewableId) },
        ConsistentRead: true,
      });
      const batch = pending.slice(0, 98);
      if (batch.length === 0) return 0;
      const [base] = await batchGet(table, [reviewKeys.rating(space, reviewableId)]);
      const version = Number(base?.fold_version ?? 0);
      const sum = batch.reduce((n, d) => n + Number(d.rating_sum), 0);
      const count = batch.reduce((n, d) => n + Number(d.rating_count), 0);
      const cancelled = await transact(
        table.client,
        {
          aggregate: {
            Update: {
              TableName: TableName(),
              Key: reviewKeys.rating(space, reviewableId),
              UpdateExpression: 'SET #type = :type ADD rating_sum :s, rating_count :c, fold_version :one',
              ConditionExpression: version === 0 ? 'attribute_not_exists(fold_version)' : 'fold_version = :v',
              ExpressionAttributeNames: { '#type': 'type' },
              ExpressionAttributeValues: { ':type': 'rating', ':s': sum, ':c': count, ':one': 1, ...(version === 0 ? {} : { ':v': version }) },
            },
          },
        },
        batch.map((d) => ({ Delete: { TableName: TableName(), Key: { pk: d.pk, sk: d.sk }, ConditionExpression: 'attribute_exists(pk)' } })),
      );
      return cancelled ? 0 : batch.length;
    },

    /**
     * The ratings of some reviewables in some spaces, summed per reviewable:
     * each aggregate plus its deltas not folded yet (one Query per space, a
     * small partition: deltas are folded as soon as they are written). A fold
     * that commits while this reads shows as a moved `fold_version` between
     * the two reads of the aggregates: read again.
     */
    async ratings(spaces: string[], reviewableIds: string[]): Promise<Map<string, { sum: number; count: number }>> {
      const keys = spaces.flatMap((s) => reviewableIds.map((id) => reviewKeys.rating(s, id)));
      const wanted = new Set(reviewableIds);
      const aggregates = async () => {
        const items: Item[] = [];
        for (let i = 0; i < keys.length; i += 100) items.push(...(await batchGet(table, keys.slice(i, i + 100))));
        return items;
      };
      const versions = (items: Item[]) =>
        items
          .map((i) => `${i.pk as string}|${i.sk as string}|${Number(i.fold_version ?? 0)}`)
          .sort()
          .join(',');
      for (let attempt = 0; ; attempt++) {
        const before = await aggregates();
        const deltas = (
          await Promise.all(
            spaces.map((s) =>
              queryAll(table, {
                KeyConditionExpression: 'pk = :p',
                ExpressionAttributeValues: { ':p': reviewKeys.ratingDeltaPartition(s) },
                ConsistentRead: true,
              }),
            ),
          )
        ).flat();
        const after = await aggregates();
        if (versions(before) !== versions(after) && attempt < 5) continue;
        const out = new Map<string, { sum: number; count: number }>();
        const add = (id: string, sum: number, count: number) => {
          const acc = out.get(id) ?? { sum: 0, count: 0 };
          acc.sum += sum;
          acc.count += count;
          out.set(id, acc);
        };
        for (const item of after) add(item.sk as string, Number(item.rating_sum ?? 0), Number(item.rating_count ?? 0));
        for (const d of deltas) if (wanted.has(d.reviewable_id as string)) add(d.reviewable_id as string, Number(d.rating_sum), Number(d.rating_count));
        return out;
      }
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

    /** Sets aggregates outright (after a bulk load, computed from what was loaded): their pending deltas, counted in the totals, go. */
    async setRatings(space: string, totals: Map<string, { sum: number; count: number }>): Promise<void> {
      const pending = await queryAll(table, {
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': reviewKeys.ratingDeltaPartition(space) },
        ConsistentRead: true,
      });
      await batchWrite(table, [
        ...[...totals].map(([id, t]) => ({
          PutRequest: { Item: { ...reviewKeys.rating(space, id), type: 'rating', rating_sum: t.sum, rating_count: t.count } },
        })),
        ...pending.filter((d) => totals.has(d.reviewable_id as string)).map((d) => ({ DeleteRequest: { Key: { pk: d.pk, sk: d.sk } } })),
      ]);
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
