import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dataTable, type Table, type TransactItem, transact } from '../db/client';
import { isConditionFailed } from '../db/errors';
import { clean, inList, newestFirst, queryAll, queryPage } from '../db/query';
import type { Env } from '../kernel/tenant';
import { settlementKeys } from './keys';
import type { IssuerIdentity, LedgerLine, PartnerIdentity, SettlementRecord, SettlementStatus, StoredDocument } from './model';

export interface SettlementFilter {
  limit: number;
  status?: SettlementStatus[];
  /** Periods YYYY-MM, inclusive. */
  from: string;
  to: string;
}

/** What the issue transaction writes besides the number. */
export interface IssueFields {
  issued_at: string;
  issue_date: string;
  due_date: string;
  issuer: IssuerIdentity;
  partner: PartnerIdentity;
}

/**
 * Settlements (one item per tenant and period; its totals are written when it
 * is issued, a DRAFT's are summed from its lines when read), their ledger
 * lines, and the number series (a counter and a register per series).
 */
export function makeSettlementStore(table: Table = dataTable) {
  const TableName = () => table.name();
  const ref = (s: Pick<SettlementRecord, 'partner_id' | 'env' | 'period'>) => settlementKeys.header(s.partner_id, s.env, s.period);
  const names = { '#s': 'status' };

  const store = {
    /**
     * A new line in the ledger of a period: an item of the booking's own (its
     * key holds the booking number), conditioned on not existing. Nothing
     * else: no settlement item is in the booking's transaction (the DRAFT's
     * totals are summed from the lines; see `open` and docs/architecture.md).
     */
    addLine(partnerId: string, env: Env, period: string, line: LedgerLine): TransactItem {
      const key =
        line.kind === 'BOOKING'
          ? settlementKeys.bookingLine(partnerId, env, period, line.booking_number)
          : settlementKeys.adjustmentLine(partnerId, env, period, line.booking_number);
      return { Put: { TableName: TableName(), Item: { ...key, type: 'ledger_line', ...line }, ConditionExpression: 'attribute_not_exists(pk)' } };
    },

    /** The booking's line in an open period changes (a cancellation keeps only the fee, a completion says so). */
    changeLine(
      partnerId: string,
      env: Env,
      period: string,
      bookingNumber: string,
      change: Partial<Pick<LedgerLine, 'status' | 'amount_minor' | 'refund_minor'>>,
      now: Date,
    ): TransactItem {
      const values: Record<string, unknown> = { ':now': now.toISOString() };
      const sets = ['updated_at = :now'];
      for (const [k, v] of Object.entries(change)) {
        sets.push(`${k === 'status' ? '#s' : k} = :${k}`);
        values[`:${k}`] = v;
      }
      return {
        Update: {
          TableName: TableName(),
          Key: settlementKeys.bookingLine(partnerId, env, period, bookingNumber),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'attribute_exists(pk)',
          ...('status' in change ? { ExpressionAttributeNames: names } : {}),
          ExpressionAttributeValues: values,
        },
      };
    },

    /** The settlement item as stored, without the sum of a DRAFT's lines (the ledger's writers read whether it is open). */
    async header(partnerId: string, env: Env, period: string): Promise<SettlementRecord | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: settlementKeys.header(partnerId, env, period), ConsistentRead: true }));
      return r.Item ? clean<SettlementRecord>(r.Item) : undefined;
    },

    /**
     * Creates the DRAFT of a period (its first line is about to be written):
     * a single conditional write of its own, never in a booking's transaction
     * (single writes of one item do not cancel each other in DynamoDB: the
     * later ones fail their condition). Resolves false when it exists already.
     */
    async open(partnerId: string, env: Env, period: string, newId: string, now: Date): Promise<boolean> {
      try {
        await table.client.send(
          new PutCommand({
            TableName: TableName(),
            Item: {
              ...settlementKeys.header(partnerId, env, period),
              ...settlementKeys.byId(newId),
              type: 'settlement',
              id: newId,
              partner_id: partnerId,
              env,
              period,
              status: 'DRAFT',
              currency: 'MAD',
              total_minor: 0,
              line_count: 0,
              booking_count: 0,
              created_at: now.toISOString(),
              updated_at: now.toISOString(),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return true;
      } catch (e) {
        if (isConditionFailed(e)) return false;
        throw e;
      }
    },

    /**
     * Starts closing a DRAFT: from `closing_at` on, the ledger's writers send
     * their lines to a later period. Kept when already set (a resumed run).
     * Returns the instant the close began.
     */
    async startClosing(s: SettlementRecord, now: Date): Promise<string | undefined> {
      if (s.closing_at) return s.closing_at;
      const cancelled = await transact(table.client, {
        draft: {
          Update: {
            TableName: TableName(),
            Key: ref(s),
            UpdateExpression: 'SET closing_at = :at',
            ConditionExpression: '#s = :draft AND attribute_not_exists(closing_at)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':at': now.toISOString(), ':draft': 'DRAFT' },
          },
        },
      });
      return cancelled ? (await store.header(s.partner_id, s.env, s.period))?.closing_at : now.toISOString();
    },

    /** A settlement with the sum of its lines when it is a DRAFT (an issued one carries its frozen totals). */
    async withTotals(s: SettlementRecord): Promise<SettlementRecord> {
      if (s.status !== 'DRAFT') return s;
      const t = await store.sum(s.partner_id, s.env, s.period);
      return { ...s, ...t };
    },

    /** The totals of a period's lines: a paged, strongly consistent Query that keeps only the amounts. */
    async sum(partnerId: string, env: Env, period: string): Promise<Pick<SettlementRecord, 'total_minor' | 'line_count' | 'booking_count'>> {
      const t = { total_minor: 0, line_count: 0, booking_count: 0 };
      for await (const page of store.linePages(partnerId, env, period, 'amount_minor, kind')) {
        for (const l of page) {
          t.total_minor += l.amount_minor;
          t.line_count++;
          if (l.kind === 'BOOKING') t.booking_count++;
        }
      }
      return t;
    },

    /** The lines of a period, page by page (strongly consistent); `projection` keeps only some attributes. */
    async *linePages(partnerId: string, env: Env, period: string, projection?: string): AsyncGenerator<LedgerLine[]> {
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const r = await table.client.send(
          new QueryCommand({
            TableName: TableName(),
            KeyConditionExpression: 'pk = :p',
            ExpressionAttributeValues: { ':p': settlementKeys.ledgerPartition(partnerId, env, period) },
            ...(projection ? { ProjectionExpression: projection } : {}),
            ConsistentRead: true,
            ExclusiveStartKey,
          }),
        );
        yield (r.Items ?? []).map((i) => clean<LedgerLine>(i));
        ExclusiveStartKey = r.LastEvaluatedKey;
      } while (ExclusiveStartKey);
    },

    async get(partnerId: string, env: Env, period: string): Promise<SettlementRecord | undefined> {
      const h = await store.header(partnerId, env, period);
      return h && store.withTotals(h);
    },

    /** Every settlement of a tenant, oldest period first (one a month: a small partition). */
    async allForTenant(partnerId: string, env: Env): Promise<SettlementRecord[]> {
      const items = await queryAll(table, {
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :pre)',
        ExpressionAttributeValues: { ':p': settlementKeys.tenantPartition(partnerId, env), ':pre': settlementKeys.periodPrefix },
        ConsistentRead: true,
      });
      return Promise.all(items.map((i) => store.withTotals(clean<SettlementRecord>(i))));
    },

    /** A tenant's settlement by id: a Query of the tenant's partition (strongly consistent), never another tenant's. */
    async findForTenant(partnerId: string, env: Env, id: string): Promise<SettlementRecord | undefined> {
      const items = await queryAll(table, {
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :pre)',
        FilterExpression: '#id = :id',
        ExpressionAttributeNames: { '#id': 'id' },
        ExpressionAttributeValues: { ':p': settlementKeys.tenantPartition(partnerId, env), ':pre': settlementKeys.periodPrefix, ':id': id },
        ConsistentRead: true,
      });
      return items[0] ? store.withTotals(clean<SettlementRecord>(items[0])) : undefined;
    },

    /** A settlement by id alone (operators): the id index, then a consistent read of the item. */
    async findById(id: string): Promise<SettlementRecord | undefined> {
      const r = await table.client.send(
        new QueryCommand({
          TableName: TableName(),
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :p',
          ExpressionAttributeValues: { ':p': settlementKeys.byIdPartition(id) },
        }),
      );
      const hit = r.Items?.[0];
      return hit ? store.get(hit.partner_id as string, hit.env as Env, hit.period as string) : undefined;
    },

    /** A tenant's settlements, newest period first; `after` is the sort key of the last row of the previous page. */
    async listForTenant(partnerId: string, env: Env, f: SettlementFilter, after?: string) {
      const values: Record<string, unknown> = {};
      const { items, next } = await newestFirst(
        table,
        {
          partition: settlementKeys.tenantPartition(partnerId, env),
          between: settlementKeys.periodRange(f.from, f.to),
          ...(f.status?.length ? { filter: { expression: inList('#s', f.status, values, 's'), names, values } } : {}),
        },
        f.limit,
        after,
      );
      return { items: await Promise.all(items.map((i) => store.withTotals(clean<SettlementRecord>(i)))), next };
    },

    /**
     * A keyset page of a period's lines in their key order (adjustments, then bookings, each by booking number),
     * strongly consistent; `after` is the sort key of the last line of the previous page.
     */
    async linePage(partnerId: string, env: Env, period: string, limit: number, after?: string): Promise<{ items: LedgerLine[]; next?: string }> {
      const pk = settlementKeys.ledgerPartition(partnerId, env, period);
      const { items, hasMore } = await queryPage(
        table,
        { KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': pk }, ConsistentRead: true },
        limit,
        after === undefined ? undefined : { pk, sk: after },
      );
      return { items: items.map((i) => clean<LedgerLine>(i)), next: hasMore ? (items.at(-1)!.sk as string) : undefined };
    },

    /** The lines of a settlement (strongly consistent). */
    async lines(partnerId: string, env: Env, period: string): Promise<LedgerLine[]> {
      const out: LedgerLine[] = [];
      for await (const page of store.linePages(partnerId, env, period)) out.push(...page);
      return out;
    },

    /** The last number assigned in a series (0 before the first). */
    async lastNumber(env: Env, partnerId: string): Promise<number> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: settlementKeys.counter(env, partnerId), ConsistentRead: true }));
      return (r.Item?.last as number | undefined) ?? 0;
    },

    /** The register of a series: every number assigned, in order. */
    async register(env: Env, partnerId: string) {
      const items = await queryAll(table, {
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :pre)',
        ExpressionAttributeValues: { ':p': settlementKeys.seriesPartition(env, partnerId), ':pre': settlementKeys.registerPrefix },
        ConsistentRead: true,
      });
      return items.map((i) =>
        clean<{ seq: number; number: string; settlement_id: string; partner_id: string; env: Env; period: string; issued_at: string }>(i),
      );
    },

    /**
     * DRAFT -> ISSUED with the next number of its series, in one transaction:
     * the counter moves from `seq - 1` to `seq` (conditioned on its previous
     * value, so a number is never skipped or given twice), the register records
     * it, and the settlement takes it with the totals of its lines (summed
     * after the close's grace), conditioned on being the DRAFT whose close
     * began at `closing_at`.
     */
    issue(s: SettlementRecord, seq: number, number: string, fields: IssueFields): { counter: TransactItem; register: TransactItem; settlement: TransactItem } {
      const counterKey = settlementKeys.counter(s.env, s.partner_id);
      return {
        counter:
          seq === 1
            ? { Put: { TableName: TableName(), Item: { ...counterKey, last: 1 }, ConditionExpression: 'attribute_not_exists(pk)' } }
            : {
                Update: {
                  TableName: TableName(),
                  Key: counterKey,
                  UpdateExpression: 'SET #last = :n',
                  ConditionExpression: '#last = :prev',
                  ExpressionAttributeNames: { '#last': 'last' },
                  ExpressionAttributeValues: { ':n': seq, ':prev': seq - 1 },
                },
              },
        register: {
          Put: {
            TableName: TableName(),
            Item: {
              ...settlementKeys.registerEntry(s.env, s.partner_id, seq),
              seq,
              number,
              settlement_id: s.id,
              partner_id: s.partner_id,
              env: s.env,
              period: s.period,
              issued_at: fields.issued_at,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        settlement: {
          Update: {
            TableName: TableName(),
            Key: ref(s),
            UpdateExpression:
              'SET #s = :issued, #number = :number, seq = :seq, issued_at = :at, issue_date = :idate, due_date = :due, issuer = :issuer, #partner = :partner, ' +
              'documents_status = :pending, updated_at = :at, total_minor = :total, line_count = :lines, booking_count = :bookings',
            ConditionExpression: '#s = :draft AND closing_at = :closing',
            ExpressionAttributeNames: { ...names, '#number': 'number', '#partner': 'partner' },
            ExpressionAttributeValues: {
              ':issued': 'ISSUED',
              ':number': number,
              ':seq': seq,
              ':at': fields.issued_at,
              ':idate': fields.issue_date,
              ':due': fields.due_date,
              ':issuer': fields.issuer,
              ':partner': fields.partner,
              ':pending': 'PENDING',
              ':draft': 'DRAFT',
              ':total': s.total_minor,
              ':lines': s.line_count,
              ':bookings': s.booking_count,
              ':closing': s.closing_at,
            },
          },
        },
      };
    },

    /** The issued documents are stored: the settlement records them once (settlement.issued goes in the same transaction). */
    documentsStored(s: SettlementRecord, documents: { invoice: StoredDocument; statement: StoredDocument }, now: Date): TransactItem {
      return {
        Update: {
          TableName: TableName(),
          Key: ref(s),
          UpdateExpression: 'SET documents = :d, documents_status = :ready, updated_at = :now',
          ConditionExpression: 'documents_status = :pending',
          ExpressionAttributeValues: { ':d': documents, ':ready': 'READY', ':pending': 'PENDING', ':now': now.toISOString() },
        },
      };
    },

    /** ISSUED -> PAID with the transfer that paid it. */
    paid(s: SettlementRecord, reference: string, amountMinor: number, now: Date): TransactItem {
      return {
        Update: {
          TableName: TableName(),
          Key: ref(s),
          UpdateExpression: 'SET #s = :paid, paid_at = :now, transfer_reference = :ref, amount_received_minor = :amount, updated_at = :now',
          ConditionExpression: '#s = :issued AND total_minor = :amount',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':paid': 'PAID', ':issued': 'ISSUED', ':now': now.toISOString(), ':ref': reference, ':amount': amountMinor },
        },
      };
    },
  };
  return store;
}

export const settlementStore = makeSettlementStore();
