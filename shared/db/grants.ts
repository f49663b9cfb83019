import { TABLES, type TableName } from './tables';

/**
 * DynamoDB's actions on items, as IAM authorizes them. Each item of a transaction is authorized as the
 * single-item action it is (PutItem, UpdateItem, DeleteItem, ConditionCheckItem; GetItem in TransactGetItems),
 * not as the transaction ("Using IAM with DynamoDB transactions", DynamoDB Developer Guide).
 */
export const ITEM_ACTIONS = ['GetItem', 'BatchGetItem', 'Query', 'ConditionCheckItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'] as const;
export type ItemAction = (typeof ITEM_ACTIONS)[number];

/**
 * What code does to one table: per item action, the partitions it reaches as dynamodb:LeadingKeys patterns
 * (`<prefix>#*`, named in the features' keys.ts: docs/architecture.md "Data model and access patterns"),
 * and the secondary indexes it queries (an index Query is bounded by its index, not by partitions).
 */
export type TableUse = { readonly [A in ItemAction]?: readonly string[] } & { readonly queryIndexes?: readonly string[] };

/** What code does to each table; the CDK grants exactly that (ServiceFunction.useTables). */
export type DynamoUse = { readonly [T in TableName]?: TableUse };

/** One IAM statement of a use: actions on a table's items under the same partitions, or Query of one index. */
export interface UseStatement {
  table: TableName;
  actions: ItemAction[];
  /** dynamodb:LeadingKeys patterns (ForAllValues:StringLike); absent for an index. */
  leadingKeys?: string[];
  index?: string;
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

/** Several uses as one: per table and action, every partition any of them names. */
export function mergeUses(...uses: (DynamoUse | undefined)[]): DynamoUse {
  const out: Record<string, Record<string, string[]>> = {};
  for (const use of uses) {
    for (const [table, t] of Object.entries(use ?? {}) as [TableName, TableUse][]) {
      out[table] ??= {};
      for (const [k, v] of Object.entries(t) as [string, readonly string[]][]) out[table][k] = sorted([...(out[table][k] ?? []), ...v]);
    }
  }
  return out as DynamoUse;
}

/**
 * The statements that grant a use and nothing more: the actions that reach the same partitions share one (so a
 * role's policy stays small), each index queried has its own.
 */
export function useStatements(use: DynamoUse): UseStatement[] {
  const out: UseStatement[] = [];
  for (const [table, t] of Object.entries(use) as [TableName, TableUse][]) {
    const byKeys = new Map<string, ItemAction[]>();
    for (const action of ITEM_ACTIONS) {
      const keys = t[action];
      if (!keys?.length) continue;
      const k = JSON.stringify(sorted(keys));
      byKeys.set(k, [...(byKeys.get(k) ?? []), action]);
    }
    for (const [k, actions] of byKeys) out.push({ table, actions, leadingKeys: JSON.parse(k) as string[] });
    for (const index of sorted(t.queryIndexes ?? [])) out.push({ table, actions: ['Query'], index });
  }
  return out;
}

/**
 * A grant as the least-privilege report names it (infra/local/iam/report.ts), e.g.
 * `dynamodb:PutItem on table data for BOOKING#*`, `dynamodb:Query on table data/index/gsi1`.
 */
export const dynamoLine = (table: TableName, action: ItemAction, leadingKey?: string, index?: string) =>
  `dynamodb:${action} on table ${TABLES[table].name}${index ? `/index/${index}` : ''}${leadingKey ? ` for ${leadingKey}` : ''}`;
