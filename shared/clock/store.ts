import { GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { dataTable, type Table } from '../db/client';
import { isConditionFailed } from '../db/errors';
import { clean, indexBefore } from '../db/query';
import { clockMs } from '../kernel/clock';
import { type Env, operatorTenant, type Tenant } from '../kernel/tenant';
import { clockKeys } from './keys';
import type { ClockRecord } from './model';

/** The index keys of an advancing clock: by the real time of its last step. */
const indexed = (heartbeatAt: string, partnerId: string) => {
  const k = clockKeys.advancing(heartbeatAt, partnerId);
  return { ':gp': k.gsi1pk, ':gs': k.gsi1sk };
};

const strip = (item: Record<string, unknown> | undefined) => (item ? clean<ClockRecord>(item) : undefined);

/** The sandbox clocks: one item per partner, every change a conditional write. */
export function makeClockStore(table: Table = dataTable) {
  const TableName = () => table.name();
  return {
    /** Strongly consistent: an advance's step is seen by the next request and the next attempt at once. */
    async get(partnerId: string): Promise<ClockRecord | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: clockKeys.clock(partnerId), ConsistentRead: true }));
      return strip(r.Item);
    },

    /**
     * Starts an advance: the clock stands still at `from` (its time now) until the advance ends at `to`.
     * Only from a ready clock, or one whose advance made no step since `staleBefore` (its worker died with
     * its retries): undefined when another advance holds it.
     */
    async start(partnerId: string, input: { from: string; to: string; advanceId: string; realNow: Date; staleBefore: Date }): Promise<ClockRecord | undefined> {
      const real = input.realNow.toISOString();
      return updated(partnerId, {
        UpdateExpression:
          'SET partner_id = :p, offset_ms = if_not_exists(offset_ms, :zero), #s = :advancing, frozen_at = :from, advanced_from = :from, advancing_to = :to, advance_id = :id, heartbeat_at = :real, updated_at = :real, gsi1pk = :gp, gsi1sk = :gs',
        ConditionExpression: 'attribute_not_exists(pk) OR #s = :ready OR heartbeat_at < :stale',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':p': partnerId,
          ':zero': 0,
          ':advancing': 'advancing',
          ':ready': 'ready',
          ':from': input.from,
          ':to': input.to,
          ':id': input.advanceId,
          ':real': real,
          ':stale': input.staleBefore.toISOString(),
          ...indexed(real, partnerId),
        },
      });
    },

    /** The advance plays instant `at` now: the clock reads `at`. False when the advance is no longer this one. */
    step: (partnerId: string, advanceId: string, at: string, realNow = new Date()) =>
      whileAdvancing(partnerId, advanceId, 'SET frozen_at = :at, heartbeat_at = :real, updated_at = :real, gsi1pk = :gp, gsi1sk = :gs', {
        ':at': at,
        ':real': realNow.toISOString(),
        ...indexed(realNow.toISOString(), partnerId),
      }),

    /**
     * Takes over an advance whose worker made no step since `staleBefore` (it died, or its message was lost): the
     * advance keeps where it stands and where it goes, under a new id, so that a worker still alive stops at its
     * next step. Undefined when the advance is no longer that one, or stepped since.
     */
    async takeOver(partnerId: string, advanceId: string, input: { newId: string; staleBefore: Date; realNow?: Date }): Promise<ClockRecord | undefined> {
      const real = (input.realNow ?? new Date()).toISOString();
      return updated(partnerId, {
        UpdateExpression: 'SET advance_id = :new, heartbeat_at = :real, updated_at = :real, gsi1pk = :gp, gsi1sk = :gs',
        ConditionExpression: 'advance_id = :id AND #s = :advancing AND heartbeat_at < :stale',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':new': input.newId,
          ':real': real,
          ':id': advanceId,
          ':advancing': 'advancing',
          ':stale': input.staleBefore.toISOString(),
          ...indexed(real, partnerId),
        },
      });
    },

    /** The partners whose advance made no step since `before`, as the index shows them (a page at a time). */
    async *idleSince(before: Date): AsyncGenerator<string[]> {
      for await (const items of indexBefore(table, 'gsi1', clockKeys.advancingPartition, before.toISOString())) {
        yield items.map((i) => i.partner_id as string);
      }
    },

    /** The advance is over: the clock runs again from `to`, with real time. */
    finish: (partnerId: string, advanceId: string, to: string, realNow = new Date()) =>
      whileAdvancing(
        partnerId,
        advanceId,
        'SET #s = :ready, offset_ms = :offset, updated_at = :real REMOVE frozen_at, advanced_from, advancing_to, advance_id, heartbeat_at, gsi1pk, gsi1sk',
        { ':ready': 'ready', ':offset': Math.max(0, Date.parse(to) - realNow.getTime()), ':real': realNow.toISOString() },
      ),
  };

  /** A conditional update of the clock: the clock after it, undefined when its condition refused it. */
  async function updated(
    partnerId: string,
    u: Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>,
  ): Promise<ClockRecord | undefined> {
    try {
      const r = await table.client.send(new UpdateCommand({ TableName: TableName(), Key: clockKeys.clock(partnerId), ...u, ReturnValues: 'ALL_NEW' }));
      return strip(r.Attributes);
    } catch (e) {
      if (isConditionFailed(e)) return undefined;
      throw e;
    }
  }

  /** An update of the clock while the advance `advanceId` holds it; false when it no longer does. */
  async function whileAdvancing(partnerId: string, advanceId: string, update: string, values: Record<string, unknown>): Promise<boolean> {
    try {
      await table.client.send(
        new UpdateCommand({
          TableName: TableName(),
          Key: clockKeys.clock(partnerId),
          UpdateExpression: update,
          ConditionExpression: 'advance_id = :id AND #s = :advancing',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ...values, ':id': advanceId, ':advancing': 'advancing' },
        }),
      );
      return true;
    } catch (e) {
      if (isConditionFailed(e)) return false;
      throw e;
    }
  }
}

export const clockStore = makeClockStore();

/** The time of a tenant read outside a request (workers, jobs): its sandbox clock's, `real` itself in live. */
export async function tenantTime(partnerId: string, env: Env, real = new Date()): Promise<Date> {
  return env === 'test' ? new Date(clockMs(await clockStore.get(partnerId), real.getTime())) : real;
}

/**
 * An operator acting on a partner's objects (the admin CLI), on that partner's clock: a sandbox whose clock runs
 * ahead gets what the operator makes at its time, with the lead a partner's own call carries (authenticate.ts).
 */
export async function operatorTenantOnClock(partnerId: string, env: Env): Promise<Tenant> {
  const real = new Date();
  const lead = (await tenantTime(partnerId, env, real)).getTime() - real.getTime();
  return { ...operatorTenant(partnerId, env), ...(lead > 0 ? { clockOffsetMs: lead } : {}) };
}
