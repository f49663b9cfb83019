import * as z from 'zod';
import { loadConfig } from '../kernel/config';

/**
 * DynamoDB table definitions: the single source used by the CDK data construct
 * and by the local runtime to create the same tables on DynamoDB Local.
 *
 * Two tables keep grants tight: `access` holds the control plane every keyed
 * request touches (partners, members, API keys, rate-limit counters,
 * idempotency records, audit trail); `data` holds the business records
 * (catalog, quotes, bookings, events, webhooks). Read-only routes get read
 * access on `data` only. The keys of each record are built in the `keys.ts`
 * module of the feature that owns it.
 */
export interface IndexDef {
  name: string;
  partitionKey: string;
  sortKey: string;
}

export interface TableDef {
  /** Logical name: CDK construct id suffix and local table name. */
  name: string;
  /** Environment variable that carries the physical table name to handlers. */
  envVar: string;
  partitionKey: string;
  sortKey: string;
  indexes: IndexDef[];
  /** Attribute holding an epoch-seconds expiry; DynamoDB TTL deletes lazily. */
  ttlAttribute: string;
}

export const TABLES = {
  access: {
    name: 'access',
    envVar: 'ACCESS_TABLE',
    partitionKey: 'pk',
    sortKey: 'sk',
    indexes: [{ name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
    ttlAttribute: 'ttl',
  },
  data: {
    name: 'data',
    envVar: 'DATA_TABLE',
    partitionKey: 'pk',
    sortKey: 'sk',
    indexes: [
      { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
      { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    ],
    ttlAttribute: 'ttl',
  },
} as const satisfies Record<string, TableDef>;

export type TableName = keyof typeof TABLES;

const accessTableConfig = z.object({ [TABLES.access.envVar]: z.string().min(1) });
const dataTableConfig = z.object({ [TABLES.data.envVar]: z.string().min(1) });

export function accessTableName(): string {
  return loadConfig(accessTableConfig)[TABLES.access.envVar] as string;
}
export function dataTableName(): string {
  return loadConfig(dataTableConfig)[TABLES.data.envVar] as string;
}
