/**
 * The one way the service classifies DynamoDB failures. Conditions and
 * transaction cancellations are expected outcomes of conditional writes (a
 * lost race, a limit reached); everything else is a real failure and is
 * rethrown by the caller.
 *
 * Errors are recognised by their service name, which holds whichever copy of
 * the SDK threw them (bundled handlers, the CLI, DynamoDB Local).
 */
const nameOf = (e: unknown) => (e instanceof Error ? e.name : undefined);

/** A single conditional write whose condition did not hold. */
export const isConditionFailed = (e: unknown): boolean => nameOf(e) === 'ConditionalCheckFailedException';

/** The item that failed a condition, when the write asked for it with ReturnValuesOnConditionCheckFailure. */
export function conditionFailedItem(e: unknown): Record<string, unknown> | undefined {
  return isConditionFailed(e) ? ((e as { Item?: Record<string, unknown> }).Item ?? undefined) : undefined;
}

/**
 * Why a TransactWriteItems was cancelled: one code per item, in the order of
 * the items ('None', 'ConditionalCheckFailed', 'TransactionConflict', ...).
 * Undefined when the error is not a cancelled transaction.
 */
export function cancellationReasons(e: unknown): string[] | undefined {
  if (nameOf(e) !== 'TransactionCanceledException') return undefined;
  return ((e as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code ?? 'None');
}

/** The outcome of a cancelled transaction, named per item so callers read `reasons.seat` rather than an index. */
export class TransactionCancelled<K extends string> {
  constructor(
    readonly codes: string[],
    private readonly names: readonly K[],
  ) {}

  /** The item `name` failed its condition. */
  failed(name: K): boolean {
    return this.codes[this.names.indexOf(name)] === 'ConditionalCheckFailed';
  }

  /** Another transaction touched the same items: retrying may succeed. */
  get conflict(): boolean {
    return this.codes.includes('TransactionConflict');
  }
}
