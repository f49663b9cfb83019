import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { batchWrite, type WriteRequest } from '../db/batch';
import { dataTable, type Table } from '../db/client';
import { clean, type Item, queryPage } from '../db/query';
import type { Tenant } from '../kernel/tenant';
import { addDays } from '../kernel/time';
import type { RequestLogEntry, RequestLogLine } from './entry';
import { requestLogKeys } from './keys';
import { IDEMPOTENCY_KEY_HASH, idempotencyKeyHash } from './marker';

/** Entries are kept 30 days (DynamoDB TTL deletes them within a few days after). */
export const REQUEST_LOG_RETENTION_DAYS = 30;

export interface RequestLogFilter {
  status?: string;
  code?: string;
  path?: string;
  request_id?: string;
  idempotency_key?: string;
  key?: string;
  occurred_from?: string;
  occurred_to?: string;
}

const iso = (s: string) => new Date(s).toISOString();
const expiry = (occurredAt: string) => Math.floor(Date.parse(occurredAt) / 1000) + REQUEST_LOG_RETENTION_DAYS * 86_400;

/** The entry's row and its request-id pointer. */
function rows(line: RequestLogLine): WriteRequest[] {
  const { partner_id: partnerId, request_log: _marker, ...rest } = line;
  const { level: _l, message: _m, timestamp: _t, route: _r, ...entry } = rest as RequestLogEntry & Record<string, unknown>;
  const key = requestLogKeys.entry(partnerId, entry.environment, entry.occurred_at, entry.request_id);
  const ttl = expiry(entry.occurred_at);
  return [
    { PutRequest: { Item: { ...key, type: 'REQLOG', ...entry, ttl } } },
    { PutRequest: { Item: { ...requestLogKeys.byId(partnerId, entry.environment, entry.request_id), type: 'REQLOGID', entry: key, ttl } } },
  ];
}

/** Filters that are not keys: DynamoDB applies them after reading (each page reads until it holds its rows). */
function filterOf(f: RequestLogFilter) {
  const parts: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const eq = (attr: string, v: unknown) => {
    names[`#${attr}`] = attr;
    values[`:${attr}`] = v;
    parts.push(`#${attr} = :${attr}`);
  };
  if (f.status?.endsWith('xx')) {
    names['#status'] = 'status';
    Object.assign(values, { ':lo': Number(f.status[0]) * 100, ':hi': Number(f.status[0]) * 100 + 99 });
    parts.push('#status BETWEEN :lo AND :hi');
  } else if (f.status) eq('status', Number(f.status));
  if (f.code) eq('error_code', f.code);
  if (f.request_id) eq('request_id', f.request_id);
  if (f.idempotency_key) {
    // Entries hold the key's hash: the filter takes the key (or the hash an entry shows) and compares hashes.
    // An entry written before keys were hashed (kept 30 days) holds the key itself: matched too, and shown hashed (views.ts).
    const given = f.idempotency_key;
    names['#idempotency_key'] = 'idempotency_key';
    Object.assign(values, { ':idemHash': IDEMPOTENCY_KEY_HASH.test(given) ? given : idempotencyKeyHash(given), ':idemAsSent': given });
    parts.push('(#idempotency_key = :idemHash OR #idempotency_key = :idemAsSent)');
  }
  if (f.key) eq('key_id', f.key);
  if (f.path) {
    names['#path'] = 'path';
    values[':path'] = f.path;
    parts.push('begins_with(#path, :path)');
  }
  return parts.length ? { FilterExpression: parts.join(' AND '), ExpressionAttributeNames: names, values } : { values };
}

/** The request log of a partner and environment: written by the log consumer, read by the two routes. */
export function makeRequestLogStore(table: Table = dataTable) {
  return {
    /** BatchWriteItem of the entries and their pointers (unprocessed items re-sent with backoff). */
    async save(lines: RequestLogLine[]): Promise<void> {
      const byKey = new Map<string, WriteRequest>();
      for (const r of lines.flatMap(rows)) {
        const item = (r as { PutRequest: { Item: Item } }).PutRequest.Item;
        byKey.set(`${item.pk}\0${item.sk}`, r); // a line delivered twice is one row
      }
      await batchWrite(table, [...byKey.values()]);
    },

    /**
     * Newest first, across the day partitions from the newest day in range down to the oldest one kept:
     * `after` is the sort key of the last entry shown (its day is its first ten characters).
     */
    async list(t: Tenant, f: RequestLogFilter, limit: number, after?: string, now = new Date()): Promise<{ items: RequestLogEntry[]; next?: string }> {
      const oldest = addDays(now.toISOString().slice(0, 10), -REQUEST_LOG_RETENTION_DAYS);
      const lower = f.occurred_from && iso(f.occurred_from) > oldest ? iso(f.occurred_from) : oldest;
      const upper = after ?? `${f.occurred_to ? iso(f.occurred_to) : now.toISOString()}#\uffff`;
      if (upper < lower) return { items: [] };
      const { values, ...filter } = filterOf(f);
      const items: Item[] = [];
      for (let day = upper.slice(0, 10); day >= lower.slice(0, 10) && items.length <= limit; day = addDays(day, -1)) {
        const pk = requestLogKeys.day(t.partnerId, t.env, day);
        const r = await queryPage(
          table,
          {
            KeyConditionExpression: 'pk = :p AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':p': pk, ':from': lower, ':to': upper, ...values },
            ...filter,
            ScanIndexForward: false,
          },
          // One more than the page: whether a next page exists is then known without reading an empty one.
          limit + 1 - items.length,
          after && day === after.slice(0, 10) ? { pk, sk: after } : undefined,
        );
        items.push(...r.items);
      }
      const shown = items.slice(0, limit);
      return { items: shown.map((i) => clean<RequestLogEntry>(i)), next: items.length > limit ? (shown.at(-1)!.sk as string) : undefined };
    },

    /** One entry by its request id, through its pointer; another partner's or environment's is not found. */
    async get(t: Tenant, requestId: string): Promise<RequestLogEntry | undefined> {
      const pointer = await table.client.send(new GetCommand({ TableName: table.name(), Key: requestLogKeys.byId(t.partnerId, t.env, requestId) }));
      const key = pointer.Item?.entry as { pk: string; sk: string } | undefined;
      if (!key) return undefined;
      const r = await table.client.send(new GetCommand({ TableName: table.name(), Key: key }));
      return r.Item ? clean<RequestLogEntry>(r.Item) : undefined;
    },
  };
}

export const requestLogStore = makeRequestLogStore();
