import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { JWK } from 'jose';
import { dataTable, type Table, type TransactItem } from '../db/client';
import { isConditionFailed } from '../db/errors';
import { batchGet, clean, inList, newestFirst, queryPages } from '../db/query';
import { moveIndexToRows } from '../db/rows';
import type { Env } from '../kernel/tenant';
import { bookingKeys } from './keys';
import type { BookingListRow, BookingRecord, BookingStatus, Cancellation } from './model';
import { bookingListRow } from './views';

export interface BookingFilter {
  limit: number;
  status?: BookingStatus[];
  /** The HMAC of the customer reference to match exactly. */
  customerRefHash?: string;
  /** ISO instants in the stored form, inclusive. */
  createdFrom: string;
  createdTo: string;
}

/** Bookings, their partner_reference reservations, customer-reference keys and payment keys. */
export function makeBookingStore(table: Table = dataTable) {
  const TableName = () => table.name();
  const leaveConfirmed = (bookingNumber: string, set: string, values: Record<string, unknown>): TransactItem => ({
    Update: {
      TableName: TableName(),
      Key: bookingKeys.booking(bookingNumber),
      // Leaving CONFIRMED also leaves the completion job's index.
      UpdateExpression: `SET ${set} REMOVE gsi2pk, gsi2sk`,
      ConditionExpression: '#s = :confirmed',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ...values, ':confirmed': 'CONFIRMED' },
    },
  });

  const rowItem = (b: BookingRecord) => ({
    ...bookingKeys.listRow(b.partner_id, b.env, b.created_at, b.booking_number),
    type: 'booking_row',
    ...bookingListRow(b),
  });

  const store = {
    async get(bookingNumber: string): Promise<BookingRecord | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: bookingKeys.booking(bookingNumber), ConsistentRead: true }));
      return r.Item ? clean<BookingRecord>(r.Item) : undefined;
    },

    /** The booking number a partner_reference is reserved for (the duplicate check's record). */
    async numberOfReference(partnerId: string, env: Env, reference: string): Promise<string | undefined> {
      const r = await table.client.send(
        new GetCommand({ TableName: TableName(), Key: bookingKeys.partnerReference(partnerId, env, reference), ConsistentRead: true }),
      );
      return r.Item?.booking_number as string | undefined;
    },

    /** The adventure titles of some bookings, by booking number (list rows written before they carried it). */
    async titles(bookingNumbers: string[]): Promise<Map<string, string>> {
      const items = await batchGet(table, bookingNumbers.map(bookingKeys.booking));
      return new Map(items.map((i) => [i.booking_number as string, (i.adventure as BookingRecord['adventure']).title]));
    },

    /** A new booking; fails if the number is taken. Its list row goes in the same transaction (`listRow`). */
    put(b: BookingRecord): TransactItem {
      return {
        Put: {
          TableName: TableName(),
          Item: {
            ...bookingKeys.booking(b.booking_number),
            type: 'booking',
            ...b,
            ...bookingKeys.byTravelDate(b.travel_date, b.created_at, b.booking_number),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    },

    /**
     * The booking's row in its tenant's list, as of `b`: put by every transaction that creates or changes the
     * booking. A new booking's row is new; a change moves it only out of CONFIRMED, as the booking's own update
     * does (a booking from before data:list-rows gets its row there).
     */
    listRow(b: BookingRecord): TransactItem {
      const Item = rowItem(b);
      if (b.status === 'CONFIRMED') return { Put: { TableName: TableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' } };
      return {
        Put: {
          TableName: TableName(),
          Item,
          ConditionExpression: 'attribute_not_exists(pk) OR #s = :confirmed',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':confirmed': 'CONFIRMED' },
        },
      };
    },

    /** Reserves the partner_reference for a booking: fails if the partner already used it in this environment. */
    reserveReference(partnerId: string, env: Env, reference: string, bookingNumber: string): TransactItem {
      return {
        Put: {
          TableName: TableName(),
          Item: { ...bookingKeys.partnerReference(partnerId, env, reference), booking_number: bookingNumber },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    },

    /** CONFIRMED -> CANCELLED with its cancellation record. */
    cancel(bookingNumber: string, cancellation: Cancellation, now: Date): TransactItem {
      return leaveConfirmed(bookingNumber, '#s = :c, cancellation = :x, updated_at = :now', {
        ':c': 'CANCELLED',
        ':x': cancellation,
        ':now': now.toISOString(),
      });
    },

    /** CONFIRMED -> COMPLETED. */
    complete(bookingNumber: string, now: Date): TransactItem {
      return leaveConfirmed(bookingNumber, '#s = :done, completed_at = :now, updated_at = :now', { ':done': 'COMPLETED', ':now': now.toISOString() });
    },

    /** Bookings listed through gsi1 before the list rows: their rows, and out of the index (data:list-rows). */
    moveToRows(partnerId: string, env: Env): Promise<number> {
      return moveIndexToRows(table, {
        index: 'gsi1',
        partition: bookingKeys.legacyIndexPartition(partnerId, env),
        row: (r) => rowItem(clean<BookingRecord>(r)),
      });
    },

    /** A partner's bookings in one environment, newest first, from their list rows; `after` is the sort key of the last row of the previous page. */
    async listForTenant(partnerId: string, env: Env, f: BookingFilter, after?: string) {
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = {};
      const filters: string[] = [];
      if (f.status?.length) {
        names['#s'] = 'status';
        filters.push(inList('#s', f.status, values, 's'));
      }
      if (f.customerRefHash !== undefined) {
        values[':h'] = f.customerRefHash;
        filters.push('customer_ref_hash = :h');
      }
      const { items, next } = await newestFirst(
        table,
        {
          partition: bookingKeys.listPartition(partnerId, env),
          between: bookingKeys.createdRange(f.createdFrom, f.createdTo),
          ...(filters.length ? { filter: { expression: filters.join(' AND '), names, values } } : {}),
        },
        f.limit,
        after,
      );
      return { items: items.map((i) => clean<BookingListRow>(i)), next };
    },

    /** CONFIRMED bookings travelling on a date, a page at a time. */
    async *confirmedOn(travelDate: string): AsyncGenerator<BookingRecord[]> {
      for await (const page of queryPages(table, {
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :p',
        ExpressionAttributeValues: { ':p': bookingKeys.byTravelDatePartition(travelDate) },
      })) {
        yield page.map((i) => clean<BookingRecord>(i));
      }
    },

    /** The partner's key for pseudonymizing customer references, created on first use when `create`. */
    async customerRefKey(partnerId: string, create: boolean): Promise<Buffer | undefined> {
      const Key = bookingKeys.customerRefKey(partnerId);
      const got = await table.client.send(new GetCommand({ TableName: TableName(), Key, ConsistentRead: true }));
      if (got.Item) return Buffer.from(got.Item.key as string, 'base64');
      if (!create) return undefined;
      try {
        await table.client.send(
          new PutCommand({
            TableName: TableName(),
            Item: { ...Key, key: randomBytes(32).toString('base64'), created_at: new Date().toISOString() },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (e) {
        if (!isConditionFailed(e)) throw e;
      }
      return store.customerRefKey(partnerId, false);
    },

    /** Registers a public payment key; false when the kid is already taken for this partner and environment. */
    async putPaymentKey(partnerId: string, env: Env, kid: string, jwk: JWK): Promise<boolean> {
      try {
        await table.client.send(
          new PutCommand({
            TableName: TableName(),
            Item: { ...bookingKeys.paymentKey(partnerId, env, kid), type: 'payment_key', kid, jwk, created_at: new Date().toISOString() },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return true;
      } catch (e) {
        if (isConditionFailed(e)) return false;
        throw e;
      }
    },

    async getPaymentKey(partnerId: string, env: Env, kid: string): Promise<JWK | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: bookingKeys.paymentKey(partnerId, env, kid) }));
      return r.Item?.jwk as JWK | undefined;
    },
  };
  return store;
}

export const bookingStore = makeBookingStore();
