import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dataTable, type Table, type TransactItem } from '../db/client';
import { clean, inList, newestFirst, queryAll } from '../db/query';
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
 * Settlements (one item per tenant and period, with running counters), their
 * ledger lines, and the number series (a counter and a register per series).
 */
export function makeSettlementStore(table: Table = dataTable) {
  const TableName = () => table.name();
  const ref = (s: Pick<SettlementRecord, 'partner_id' | 'env' | 'period'>) => settlementKeys.header(s.partner_id, s.env, s.period);
  const names = { '#s': 'status' };

  const store = {
    /**
     * A new line in the DRAFT of a period, and the DRAFT's counters: creates
     * the DRAFT (with `newId`) on the period's first line. Fails (`settlement`)
     * when the period's settlement is no longer a DRAFT, and (`line`) when the
     * booking already has this line.
     */
    addLine(partnerId: string, env: Env, period: string, line: LedgerLine, newId: string, now: Date): { settlement: TransactItem; line: TransactItem } {
      const key =
        line.kind === 'BOOKING'
          ? settlementKeys.bookingLine(partnerId, env, period, line.booking_number)
          : settlementKeys.adjustmentLine(partnerId, env, period, line.booking_number);
      return {
        settlement: {
          Update: {
            TableName: TableName(),
            Key: settlementKeys.header(partnerId, env, period),
            UpdateExpression:
              'SET #id = if_not_exists(#id, :id), partner_id = :p, #env = :env, #period = :period, #s = if_not_exists(#s, :draft), currency = :mad, ' +
              'created_at = if_not_exists(created_at, :now), updated_at = :now, gsi2pk = if_not_exists(gsi2pk, :g2), gsi2sk = :g2s, #type = :type ' +
              'ADD total_minor :amount, line_count :one, booking_count :bookings',
            ConditionExpression: 'attribute_not_exists(pk) OR #s = :draft',
            ExpressionAttributeNames: { ...names, '#id': 'id', '#env': 'env', '#period': 'period', '#type': 'type' },
            ExpressionAttributeValues: {
              ':id': newId,
              ':p': partnerId,
              ':env': env,
              ':period': period,
              ':draft': 'DRAFT',
              ':mad': 'MAD',
              ':now': now.toISOString(),
              ':g2': settlementKeys.byId(newId).gsi2pk,
              ':g2s': settlementKeys.byId(newId).gsi2sk,
              ':type': 'settlement',
              ':amount': line.amount_minor,
              ':one': 1,
              ':bookings': line.kind === 'BOOKING' ? 1 : 0,
            },
          },
        },
        line: { Put: { TableName: TableName(), Item: { ...key, type: 'ledger_line', ...line }, ConditionExpression: 'attribute_not_exists(pk)' } },
      };
    },

    /** A booking line of a DRAFT changes (a cancellation keeps only the fee): the line and the DRAFT's total by `delta`. */
    changeLine(
      partnerId: string,
      env: Env,
      period: string,
      bookingNumber: string,
      change: Pick<LedgerLine, 'status' | 'amount_minor' | 'refund_minor'>,
      delta: number,
      now: Date,
    ): { settlement: TransactItem; line: TransactItem } {
      return {
        settlement: {
          Update: {
            TableName: TableName(),
            Key: settlementKeys.header(partnerId, env, period),
            UpdateExpression: 'SET updated_at = :now ADD total_minor :d',
            ConditionExpression: '#s = :draft',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':now': now.toISOString(), ':d': delta, ':draft': 'DRAFT' },
          },
        },
        line: {
          Update: {
            TableName: TableName(),
            Key: settlementKeys.bookingLine(partnerId, env, period, bookingNumber),
            UpdateExpression: 'SET #s = :st, amount_minor = :a, refund_minor = :r, updated_at = :now',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':st': change.status, ':a': change.amount_minor, ':r': change.refund_minor, ':now': now.toISOString() },
          },
        },
      };
    },

    /** The booking's status on its line, while the settlement is a DRAFT (an issued settlement never changes). */
    lineStatus(partnerId: string, env: Env, period: string, bookingNumber: string, status: LedgerLine['status'], now: Date) {
      return {
        settlement: {
          ConditionCheck: {
            TableName: TableName(),
            Key: settlementKeys.header(partnerId, env, period),
            ConditionExpression: '#s = :draft',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':draft': 'DRAFT' },
          },
        } satisfies TransactItem,
        line: {
          Update: {
            TableName: TableName(),
            Key: settlementKeys.bookingLine(partnerId, env, period, bookingNumber),
            UpdateExpression: 'SET #s = :st, updated_at = :now',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':st': status, ':now': now.toISOString() },
          },
        } satisfies TransactItem,
      };
    },

    async get(partnerId: string, env: Env, period: string): Promise<SettlementRecord | undefined> {
      const r = await table.client.send(new GetCommand({ TableName: TableName(), Key: settlementKeys.header(partnerId, env, period), ConsistentRead: true }));
      return r.Item ? clean<SettlementRecord>(r.Item) : undefined;
    },

    /** Every settlement of a tenant, oldest period first (one a month: a small partition). */
    async allForTenant(partnerId: string, env: Env): Promise<SettlementRecord[]> {
      const items = await queryAll(table, {
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :pre)',
        ExpressionAttributeValues: { ':p': settlementKeys.tenantPartition(partnerId, env), ':pre': settlementKeys.periodPrefix },
        ConsistentRead: true,
      });
      return items.map((i) => clean<SettlementRecord>(i));
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
      return items[0] ? clean<SettlementRecord>(items[0]) : undefined;
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
      return { items: items.map((i) => clean<SettlementRecord>(i)), next };
    },

    /** The lines of a settlement (strongly consistent). */
    async lines(partnerId: string, env: Env, period: string): Promise<LedgerLine[]> {
      const items = await queryAll(table, {
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': settlementKeys.ledgerPartition(partnerId, env, period) },
        ConsistentRead: true,
      });
      return items.map((i) => clean<LedgerLine>(i));
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
     * it, and the settlement takes it, conditioned on being the DRAFT whose
     * lines were summed (`total_minor`, `line_count`).
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
              'documents_status = :pending, updated_at = :at',
            ConditionExpression: '#s = :draft AND total_minor = :total AND line_count = :lines',
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
