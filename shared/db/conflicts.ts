import { type DynamoDBClient, TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';

/**
 * The conflict-faithful mode (DYNAMO_CONFLICTS=aws): DynamoDB Local runs
 * transactions one at a time, so two transactions on the same item never
 * collide there, while in AWS they do. This layer, a middleware on the
 * DynamoDBClient, restores what the DynamoDB Developer Guide documents
 * ("Transaction conflict handling in DynamoDB") for the requests in flight in
 * this process:
 *
 * - a TransactWriteItems one of whose items is held by another transaction in
 *   flight is cancelled: TransactionCanceledException, with the reason
 *   `TransactionConflict` on that item and `None` on the others;
 * - a PutItem, UpdateItem or DeleteItem of an item held by a transaction in
 *   flight fails with TransactionConflictException;
 * - a TransactGetItems one of whose items is being written (by a transaction
 *   or a single write in flight) is cancelled the same way.
 *
 * The transaction already in flight goes on; the newcomer loses. A round-trip
 * delay (DYNAMO_LATENCY_MS) models AWS's latency: it is spent while the items
 * are held, which is when AWS can see the overlap. Requests that reach
 * DynamoDB Local are unchanged. Off unless DYNAMO_CONFLICTS=aws (or enabled by
 * the bench); never on in AWS, where DynamoDB does this itself.
 */
export interface ConflictStats {
  /** Transactions this layer cancelled with TransactionConflict. */
  transactionsCancelled: number;
  /** Single writes refused with TransactionConflictException. */
  writesRefused: number;
  /** TransactGetItems cancelled. */
  readsCancelled: number;
}

export interface ConflictMode {
  readonly enabled: boolean;
  enable(o?: { latencyMs?: number }): void;
  disable(): void;
  stats(): ConflictStats;
  reset(): void;
}

type Av = Record<string, unknown>;
type Keyed = { TableName?: string; Key?: Av; Item?: Av };
type TxWrite = { Put?: Keyed; Update?: Keyed; Delete?: Keyed; ConditionCheck?: Keyed };

/** The key attributes of an item (both tables key on pk and sk), as one string per table and item. */
export function itemKey(tableName: string | undefined, keyOrItem: Av | undefined, keyNames: readonly string[] = ['pk', 'sk']): string {
  const parts = keyNames.map((k) => JSON.stringify(keyOrItem?.[k] ?? null));
  return `${tableName ?? ''}|${parts.join('|')}`;
}

const keyOfAction = (a: Keyed | undefined) => (a ? itemKey(a.TableName, a.Key ?? a.Item) : undefined);

/** The item keys of a request, and what kind of request holds them (undefined: a request this layer ignores). */
export function keysOf(command: string, input: Record<string, unknown>): { kind: 'tx-write' | 'tx-get' | 'write'; keys: string[] } | undefined {
  if (command === 'TransactWriteItemsCommand') {
    const items = (input.TransactItems ?? []) as TxWrite[];
    return { kind: 'tx-write', keys: items.map((i) => keyOfAction(i.Put ?? i.Update ?? i.Delete ?? i.ConditionCheck) ?? '') };
  }
  if (command === 'TransactGetItemsCommand') {
    const items = (input.TransactItems ?? []) as { Get?: Keyed }[];
    return { kind: 'tx-get', keys: items.map((i) => keyOfAction(i.Get) ?? '') };
  }
  if (command === 'PutItemCommand' || command === 'UpdateItemCommand' || command === 'DeleteItemCommand') {
    return { kind: 'write', keys: [keyOfAction(input as Keyed) ?? ''] };
  }
  return undefined;
}

const metadata = { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The mode's state: the items held by the transactions (and single writes) in
 * flight, counted per key. `check` decides a newcomer's fate; `hold` marks its
 * items until it ends. Exported apart from the middleware for the unit tests.
 */
export function makeConflictTracker() {
  const txHeld = new Map<string, number>();
  const writeHeld = new Map<string, number>();
  const stats: ConflictStats = { transactionsCancelled: 0, writesRefused: 0, readsCancelled: 0 };
  const add = (m: Map<string, number>, keys: string[], d: number) => {
    for (const k of keys) {
      const n = (m.get(k) ?? 0) + d;
      if (n > 0) m.set(k, n);
      else m.delete(k);
    }
  };
  return {
    stats,
    /** The error DynamoDB would answer this request with while the items in flight are held, or undefined. */
    check(kind: 'tx-write' | 'tx-get' | 'write', keys: string[]): Error | undefined {
      if (kind === 'write') {
        if (!keys.some((k) => txHeld.has(k))) return undefined;
        stats.writesRefused++;
        return new TransactionConflictException({
          message: 'Transaction is ongoing for the item',
          $metadata: metadata,
        });
      }
      const busy = (k: string) => txHeld.has(k) || (kind === 'tx-get' && writeHeld.has(k));
      if (!keys.some(busy)) return undefined;
      if (kind === 'tx-get') stats.readsCancelled++;
      else stats.transactionsCancelled++;
      const reasons = keys.map((k) => (busy(k) ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' }));
      return new TransactionCanceledException({
        message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
        Message: 'Transaction cancelled',
        CancellationReasons: reasons,
        $metadata: metadata,
      });
    },
    /** Holds the items of a request in flight; the returned function releases them. */
    hold(kind: 'tx-write' | 'tx-get' | 'write', keys: string[]): () => void {
      const m = kind === 'tx-write' ? txHeld : kind === 'write' ? writeHeld : undefined;
      if (!m) return () => undefined;
      add(m, keys, 1);
      return () => add(m, keys, -1);
    },
    held: () => txHeld.size + writeHeld.size,
  };
}

/**
 * Installs the mode on a client (once): a middleware after the document
 * client's marshalling (so keys are compared as DynamoDB sees them). Enabled
 * at start by DYNAMO_CONFLICTS=aws, with DYNAMO_LATENCY_MS as the delay.
 */
export function installConflictMode(client: DynamoDBClient, env: NodeJS.ProcessEnv = process.env): ConflictMode {
  const tracker = makeConflictTracker();
  let enabled = env.DYNAMO_CONFLICTS === 'aws';
  let latencyMs = Number(env.DYNAMO_LATENCY_MS ?? 0) || 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const req = enabled ? keysOf(context.commandName ?? '', args.input as Record<string, unknown>) : undefined;
      if (!req) return next(args);
      const refused = tracker.check(req.kind, req.keys);
      if (refused) {
        if (latencyMs) await sleep(latencyMs);
        throw refused;
      }
      const release = tracker.hold(req.kind, req.keys);
      try {
        if (latencyMs) await sleep(latencyMs);
        return await next(args);
      } finally {
        release();
      }
    },
    { step: 'build', name: 'conflictFaithfulMode', override: true },
  );
  return {
    get enabled() {
      return enabled;
    },
    enable(o = {}) {
      enabled = true;
      if (o.latencyMs !== undefined) latencyMs = o.latencyMs;
    },
    disable() {
      enabled = false;
    },
    stats: () => ({ ...tracker.stats }),
    reset() {
      Object.assign(tracker.stats, { transactionsCancelled: 0, writesRefused: 0, readsCancelled: 0 });
    },
  };
}
