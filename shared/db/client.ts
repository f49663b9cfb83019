import type { DynamoDBDocumentClient, TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, dynamo } from '../kernel/aws';
import { logger } from '../kernel/logger';
import { installConflictMode } from './conflicts';
import { cancellationReasons, TransactionCancelled } from './errors';
import { accessTableName, dataTableName } from './tables';

/** One item of a TransactWriteItems call. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * A table as a store sees it: the client it sends with and the physical name
 * (read from configuration on first use). Stores receive one, so a unit test
 * can hand them a mocked client.
 */
export interface Table {
  client: DynamoDBDocumentClient;
  name(): string;
}

/** The conflict-faithful mode of the local stack (DYNAMO_CONFLICTS=aws; off in AWS): see conflicts.ts. */
export const conflictMode = installConflictMode(dynamo);

/** Transactions this process ran and how many were cancelled by a conflicting transaction (the conflict mode's bench and test read them). */
export const transactCounters = { committed: 0, conflicts: 0 };

export const accessTable: Table = { client: ddb, name: accessTableName };
export const dataTable: Table = { client: ddb, name: dataTableName };

/**
 * A transaction item that belongs to the caller rather than to the operation:
 * its failed condition stops the whole operation with `refusal()` (the request
 * lost its idempotency lock), and `committed()` runs once it is written.
 */
export interface Guard {
  item: TransactItem;
  refusal: () => Error;
  committed: () => void;
}

/**
 * What the caller of an operation adds to the one transaction that commits
 * the operation's result: the request's completed idempotency record, built
 * from that result. The record and the change then commit together, or not
 * at all, so a crash between them cannot exist. An operation passes its
 * result to `items` for the transaction that commits it, and only for that one.
 */
export interface Seal<T> {
  items(result: T): Guard[];
}

/** The seal of an operation run outside an HTTP write (jobs, the admin CLI): nothing to add. */
export const unsealed: Seal<never> = { items: () => [] };

/**
 * Runs one TransactWriteItems. The named items come first, in order, so a
 * cancellation reads as `cancelled.failed('seat')`; `extra` items (events)
 * and then `guards` (a seal's items) follow them. Resolves to undefined when
 * the transaction committed and to the cancellation when a condition or a
 * conflicting transaction cancelled it; a failed guard throws its refusal,
 * and any other failure is thrown.
 */
export async function transact<K extends string>(
  client: DynamoDBDocumentClient,
  named: Partial<Record<K, TransactItem>>,
  extra: TransactItem[] = [],
  guards: Guard[] = [],
): Promise<TransactionCancelled<K> | undefined> {
  const names = Object.keys(named) as K[];
  const TransactItems = [...names.map((n) => named[n]!), ...extra, ...guards.map((g) => g.item)];
  if (TransactItems.length > 100) throw new Error(`a transaction takes at most 100 items, not ${TransactItems.length}`);
  try {
    await client.send(new TransactWriteCommand({ TransactItems }));
    for (const g of guards) g.committed();
    transactCounters.committed++;
    return undefined;
  } catch (e) {
    const codes = cancellationReasons(e);
    if (!codes) throw e;
    const failedGuard = guards.find((_, i) => codes[names.length + extra.length + i] === 'ConditionalCheckFailed');
    if (failedGuard) throw failedGuard.refusal();
    const cancelled = new TransactionCancelled(codes, names);
    if (cancelled.conflict) {
      transactCounters.conflicts++;
      logger.info('transaction conflict', { transaction_conflict: true, items: names.filter((_, i) => codes[i] === 'TransactionConflict') });
    }
    return cancelled;
  }
}
