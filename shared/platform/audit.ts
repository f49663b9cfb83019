import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { accessTable, type Table, type TransactItem } from '../db/client';
import { clean, newestFirst } from '../db/query';
import type { Env } from '../kernel/tenant';
import { platformKeys } from './keys';

export interface AuditEvent {
  id: string;
  occurred_at: string;
  member_id: string;
  key_prefix: string | null;
  /** Absent on lines written before the console: those came from API keys. */
  via?: 'api_key' | 'console';
  environment: Env;
  method: string;
  path: string;
  status: number;
  request_id: string;
  idempotent_replayed: boolean;
}

const RETENTION_DAYS = 400;

function auditRecord(partnerId: string, e: AuditEvent) {
  return {
    pk: platformKeys.auditPartition(partnerId, e.environment),
    sk: platformKeys.auditSort(e.occurred_at, e.id),
    ...e,
    ttl: Math.floor(Date.parse(e.occurred_at) / 1000) + RETENTION_DAYS * 86400,
  };
}

/** One audit record per write; never a body (bodies may carry secrets or personal data). */
export async function recordAudit(partnerId: string, e: AuditEvent, table: Table = accessTable): Promise<void> {
  await table.client.send(new PutCommand({ TableName: table.name(), Item: auditRecord(partnerId, e) }));
}

/** The same record as a transaction item: a write's audit line commits with the operation it records. */
export function auditItem(partnerId: string, e: AuditEvent, table: Table = accessTable): TransactItem {
  return { Put: { TableName: table.name(), Item: auditRecord(partnerId, e) } };
}

/** An audit line as the API shows it: the key under key_id, and under key_prefix, its older name, as stored. */
export function auditEventView(e: AuditEvent) {
  return { ...e, key_id: e.key_prefix, via: e.via ?? 'api_key' };
}

/** Most recent first; `after` is the sort key of the last row of the previous page. */
export async function listAudit(partnerId: string, env: Env, limit: number, after?: string, table: Table = accessTable) {
  const { items, next } = await newestFirst(table, { partition: platformKeys.auditPartition(partnerId, env) }, limit, after);
  return { items: items.map((i) => clean<AuditEvent>(i)), next };
}
