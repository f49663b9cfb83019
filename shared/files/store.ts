import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dataTable, type Table, type TransactItem } from '../db/client';
import { isConditionFailed } from '../db/errors';
import { batchGet, clean, indexBefore } from '../db/query';
import { fileKeys } from './keys';
import type { FileRecord, RejectionReason, Rendition } from './model';

/** Uploaded files: their records, their check, and what attaches them to a review. */
export function makeFileStore(table: Table = dataTable) {
  const TableName = () => table.name();
  /** SET `set` on a file still PENDING_UPLOAD; false if it was checked meanwhile. */
  const whilePending = async (id: string, set: string, values: Record<string, unknown>): Promise<boolean> => {
    try {
      await table.client.send(
        new UpdateCommand({
          TableName: TableName(),
          Key: fileKeys.file(id),
          UpdateExpression: `SET ${set}`,
          ConditionExpression: '#s = :pending',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ...values, ':pending': 'PENDING_UPLOAD' },
        }),
      );
      return true;
    } catch (e) {
      if (isConditionFailed(e)) return false;
      throw e;
    }
  };
  const store = {
    async get(id: string): Promise<FileRecord | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: fileKeys.file(id), ConsistentRead: true }));
      return r.Item ? clean<FileRecord>(r.Item) : undefined;
    },

    async getMany(ids: string[]): Promise<Map<string, FileRecord>> {
      if (ids.length === 0) return new Map();
      const items = await batchGet(table, ids.map(fileKeys.file));
      return new Map(items.map((i) => [i.id as string, clean<FileRecord>(i)]));
    },

    async create(f: FileRecord): Promise<void> {
      await table.client.send(
        new PutCommand({
          TableName: TableName(),
          Item: { ...fileKeys.file(f.id), type: 'file', ...f, ...fileKeys.open(f.expires_at, f.id) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    },

    /**
     * Records the renditions the validator is about to write under photos/
     * (the file stays PENDING_UPLOAD): the photos/ guard then knows them as
     * the validator's own. False if the file was checked meanwhile.
     */
    recordRenditions(id: string, renditions: { display: Rendition; thumbnail: Rendition }): Promise<boolean> {
      return whilePending(id, 'renditions = :r', { ':r': renditions });
    },

    /** PENDING_UPLOAD -> READY or REJECTED; false if the file was already checked (a redelivered notification). */
    settle(id: string, outcome: { status: 'READY'; object_key: string } | { status: 'REJECTED'; reason: RejectionReason }, now: Date): Promise<boolean> {
      const set = '#s = :s, checked_at = :now';
      const values = { ':s': outcome.status, ':now': now.toISOString() };
      return outcome.status === 'READY'
        ? whilePending(id, `${set}, object_key = :k`, { ...values, ':k': outcome.object_key })
        : whilePending(id, `${set}, rejection_reason = :r`, { ...values, ':r': outcome.reason });
    },

    /** Attaches a READY review photo of the tenant to a review: fails unless it is free, READY, the tenant's and a review photo. */
    attach(f: { id: string; partner_id: string; env: string }, reviewId: string): TransactItem {
      return {
        Update: {
          TableName: TableName(),
          Key: fileKeys.file(f.id),
          UpdateExpression: 'SET attached_to = :r REMOVE gsi1pk, gsi1sk',
          ConditionExpression: '#s = :ready AND partner_id = :p AND env = :e AND purpose = :purpose AND attribute_not_exists(attached_to)',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':r': reviewId, ':ready': 'READY', ':p': f.partner_id, ':e': f.env, ':purpose': 'review_photo' },
        },
      };
    },

    /** Detaches a photo from its review: it is open again and expires like any unattached file. */
    detach(id: string, reviewId: string, expiresAt: string): TransactItem {
      const open = fileKeys.open(expiresAt, id);
      return {
        Update: {
          TableName: TableName(),
          Key: fileKeys.file(id),
          UpdateExpression: 'REMOVE attached_to SET expires_at = :x, gsi1pk = :gp, gsi1sk = :gs',
          ConditionExpression: 'attached_to = :r',
          ExpressionAttributeValues: { ':r': reviewId, ':x': expiresAt, ':gp': open.gsi1pk, ':gs': open.gsi1sk },
        },
      };
    },

    /** Unattached files whose expiry has passed, a page at a time. */
    expired(now: Date) {
      return indexBefore(table, 'gsi1', fileKeys.openPartition, now.toISOString());
    },

    /**
     * Deletes a file record if it is still unattached and expired: the sweep found it through an index,
     * which may show it as it was a moment ago (attached since, or detached with a later expiry).
     */
    async deleteIfOpen(id: string, now: Date): Promise<boolean> {
      try {
        await table.client.send(
          new DeleteCommand({
            TableName: TableName(),
            Key: fileKeys.file(id),
            ConditionExpression: 'attribute_not_exists(attached_to) AND expires_at <= :now',
            ExpressionAttributeValues: { ':now': now.toISOString() },
          }),
        );
        return true;
      } catch (e) {
        if (isConditionFailed(e)) return false;
        throw e;
      }
    },
  };
  return store;
}

export const fileStore = makeFileStore();
