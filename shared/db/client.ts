import type { DynamoDBDocumentClient, TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '../kernel/aws';
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

export const accessTable: Table = { client: ddb, name: accessTableName };
export const dataTable: Table = { client: ddb, name: dataTableName };

/**
 * Runs one TransactWriteItems. The named items come first, in order, so a
 * cancellation reads as `cancelled.failed('seat')`; `extra` items (events,
 * the request's idempotency outcome) follow them. Resolves to undefined when
 * the transaction committed and to the cancellation when a condition or a
 * conflicting transaction cancelled it; any other failure is thrown.
 */
export async function transact<K extends string>(
  client: DynamoDBDocumentClient,
  named: Partial<Record<K, TransactItem>>,
  extra: TransactItem[] = [],
): Promise<TransactionCancelled<K> | undefined> {
  const names = Object.keys(named) as K[];
  const TransactItems = [...names.map((n) => named[n]!), ...extra];
  if (TransactItems.length > 100) throw new Error(`a transaction takes at most 100 items, not ${TransactItems.length}`);
  try {
    await client.send(new TransactWriteCommand({ TransactItems }));
    return undefined;
  } catch (e) {
    const codes = cancellationReasons(e);
    if (!codes) throw e;
    return new TransactionCancelled(codes, names);
  }
}
