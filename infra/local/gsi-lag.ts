import { createServer, Agent as HttpAgent, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { crc32 } from 'node:zlib';
import {
  type AttributeValue,
  BatchGetItemCommand,
  type BatchGetItemCommandOutput,
  BatchWriteItemCommand,
  type BatchWriteItemCommandOutput,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  ScanCommand,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { TABLES, type TableDef } from '../../shared/db/tables';
import { jsonObject, refuseTunnels } from './http-guard';
import { closeServer, type ServerHandle } from './services';

/**
 * GSI eventual consistency on the local stack (LOCAL_GSI_LAG_MS; 0 = off).
 *
 * DynamoDB Local updates a global secondary index in the same step as its table, so a Query on an index
 * sees a write the moment it is acknowledged. In AWS every read of a GSI is eventually consistent: the
 * index is updated asynchronously, usually within a second, with no bound (DynamoDB Developer Guide,
 * "DynamoDB read consistency"; DynamoDB Local, like AWS, refuses ConsistentRead on one). This thin HTTP
 * proxy, in front of DynamoDB Local, restores the lag:
 *
 * - each table of shared/db/tables.ts has a lagged copy (`<table>.gsi-lag`) with the same indexes, holding
 *   only items that carry an index key. After a successful PutItem, UpdateItem, DeleteItem, BatchWriteItem
 *   or TransactWriteItems, the proxy takes each written item's new image (from the request, or read back
 *   strongly consistent after an update) and applies it to the copy `lag` ms after the acknowledgement;
 * - a Query or Scan with an IndexName is answered from the copy's index: as the index looked `lag` ms ago.
 *   An item written since is missing, an item updated since shows its previous image (a booking cancelled
 *   a moment ago is still CONFIRMED), an item deleted or moved out of the index since still shows, and
 *   counts, filters, pages and LastEvaluatedKey are DynamoDB Local's own over that image.
 *
 * Everything else (base-table reads and writes, transactions, conditions) reaches DynamoDB Local
 * unchanged. The copy is rebuilt from the tables at each start. Never in AWS, where DynamoDB does this itself.
 */

const lagConfig = z.object({ LOCAL_GSI_LAG_MS: z.coerce.number().int().min(0).max(10_000).optional() });

/** The lag the environment asks for (LOCAL_GSI_LAG_MS), else `fallback`. */
export function gsiLagFromEnv(fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const parsed = lagConfig.safeParse(env);
  if (!parsed.success) throw new Error(`LOCAL_GSI_LAG_MS must be a whole number of milliseconds from 0 to 10000, not ${JSON.stringify(env.LOCAL_GSI_LAG_MS)}`);
  return parsed.data.LOCAL_GSI_LAG_MS ?? fallback;
}

export const laggedName = (table: string) => `${table}.gsi-lag`;

/** GET on the layer's endpoint: answers 200 once every write acknowledged before the request is in the lagged indexes. */
export const SETTLED_PATH = '/local/gsi-lag/settled';

type Av = Record<string, AttributeValue>;
// biome-ignore lint/suspicious/noExplicitAny: bodies of DynamoDB's JSON protocol, read for their keys and passed on as they are
type Json = Record<string, any>;
type Headers = Record<string, string | string[] | undefined>;

interface Pending {
  due: number;
  table: string;
  id: string;
  key: Av;
  image: Av | undefined;
}

/** Headers of one connection, which a proxy never forwards (RFC 9110, 7.6.1), and Expect, answered by this hop. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect'];

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

const coral = (name: string) => `com.amazon.coral.service#${name}`;

/**
 * What DynamoDB answers with a 400 and DynamoDB Local with a 500 InternalFailure: a signed request whose
 * Authorization is not a Signature Version 4 header (IncompleteSignatureException, "The request signature does not
 * conform to AWS standards", DynamoDB's error handling page), whose X-Amz-Target is not a DynamoDB_20120810
 * operation (UnknownOperationException, DynamoDB Local's own answer for an unknown one), or whose body is not a JSON
 * object (SerializationException). An unsigned request is left to DynamoDB Local, which refuses it as DynamoDB does
 * (MissingAuthenticationToken). The AWS SDK never sends any of these.
 */
export function unreadableByDynamo(headers: Headers, body: Buffer): { __type: string; message: string } | undefined {
  const auth = headers.authorization;
  if (auth === undefined) return undefined;
  if (typeof auth !== 'string' || !/^AWS4-HMAC-SHA256 Credential=[^\s,]+, ?SignedHeaders=[a-z0-9;-]+, ?Signature=[0-9a-f]+$/.test(auth))
    return { __type: coral('IncompleteSignatureException'), message: 'The request signature does not conform to AWS standards.' };
  const target = headers['x-amz-target'];
  if (typeof target !== 'string' || !/^DynamoDB_20120810\.\w+$/.test(target))
    return { __type: coral('UnknownOperationException'), message: 'An unknown operation was requested.' };
  if (!jsonObject(body.toString('utf8'))) return { __type: coral('SerializationException'), message: 'The request body is not a JSON object.' };
  return undefined;
}

export interface GsiLagHandle extends ServerHandle {
  lagMs: number;
  /** Resolves once every write acknowledged so far is in the lagged copy. */
  settled(): Promise<void>;
}

/**
 * Starts the proxy on `port` in front of DynamoDB Local at `target`; `ddb` talks to DynamoDB Local
 * directly. With `lagMs` 0 it only removes the lagged copies a previous run left.
 */
export async function startGsiLag(o: { target: string; port: number; lagMs: number; ddb: DynamoDBClient }): Promise<GsiLagHandle | undefined> {
  const tables = new Map<string, TableDef>(Object.values(TABLES).map((t) => [t.name, t as TableDef]));
  if (o.lagMs === 0) {
    for (const t of tables.keys()) await dropTable(o.ddb, laggedName(t));
    return undefined;
  }
  // The items the copy holds: a write of an item that is in no index and not in the copy costs the copy nothing.
  const inCopy = new Set<string>();
  const idOf = (table: string, key: Av) => `${table}|${JSON.stringify(Object.entries(key).sort())}`;
  const keyOf = (def: TableDef, itemOrKey: Json): Av => ({ [def.partitionKey]: itemOrKey[def.partitionKey], [def.sortKey]: itemOrKey[def.sortKey] });
  const indexed = (def: TableDef, image: Av | undefined) => image !== undefined && def.indexes.some((i) => image[i.partitionKey] !== undefined);
  for (const def of tables.values()) for (const item of await buildCopy(o.ddb, def)) inCopy.add(idOf(def.name, keyOf(def, item)));

  const target = new URL(o.target);
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 64 });
  const queue: Pending[] = [];
  // How many images of each item are queued (an unindexed image of an item with one queued must still reach the copy).
  const queued = new Map<string, number>();
  let draining: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  /** What a successful write wrote, by table: each item's key, and its new image when the request holds it (a Put's item, a Delete's absence). */
  function written(op: string, body: Json): Map<string, { key: Av; image?: Av | null }[]> {
    const out = new Map<string, { key: Av; image?: Av | null }[]>();
    const add = (table: string | undefined, w: Json | undefined, kind: 'put' | 'update' | 'delete') => {
      const def = table ? tables.get(table) : undefined;
      if (!def || !w) return;
      const key = keyOf(def, kind === 'put' ? w.Item : w.Key);
      out.set(def.name, [...(out.get(def.name) ?? []), { key, ...(kind === 'put' ? { image: w.Item } : kind === 'delete' ? { image: null } : {}) }]);
    };
    if (op === 'PutItem') add(body.TableName, body, 'put');
    else if (op === 'UpdateItem') add(body.TableName, body, 'update');
    else if (op === 'DeleteItem') add(body.TableName, body, 'delete');
    else if (op === 'BatchWriteItem') {
      for (const [table, reqs] of Object.entries((body.RequestItems ?? {}) as Record<string, Json[]>)) {
        for (const r of reqs) r.PutRequest ? add(table, r.PutRequest, 'put') : add(table, r.DeleteRequest, 'delete');
      }
    } else {
      // TransactWriteItems (a ConditionCheck writes nothing).
      for (const t of (body.TransactItems ?? []) as Json[]) {
        if (t.Put) add(t.Put.TableName, t.Put, 'put');
        else if (t.Update) add(t.Update.TableName, t.Update, 'update');
        else if (t.Delete) add(t.Delete.TableName, t.Delete, 'delete');
      }
    }
    return out;
  }

  /**
   * Queues the new images of a write acknowledged at `at` for the lagged copy, reading back those the
   * request does not hold (updates). One write after the other: each read then returns a state no older
   * than the images queued before it, so the queue holds each item's images oldest first.
   */
  let recording: Promise<void> = Promise.resolve();
  /** The earliest due instant of the images being written to the copy now (drain). */
  let applying: number | undefined;
  function record(items: Map<string, { key: Av; image?: Av | null }[]>, at: number) {
    recording = recording
      .then(async () => {
        const entries: Pending[] = [];
        for (const [table, list] of items) {
          const toRead = list.filter((w) => w.image === undefined).map((w) => w.key);
          const read = new Map<string, Av>();
          for (let i = 0; i < toRead.length; i += 100) for (const [id, item] of await batchGet(o.ddb, table, toRead.slice(i, i + 100))) read.set(id, item);
          for (const w of list) {
            const id = idOf(table, w.key);
            const image = w.image === undefined ? read.get(id) : (w.image ?? undefined);
            if (!indexed(tables.get(table)!, image) && !inCopy.has(id) && !queued.has(id)) continue;
            queued.set(id, (queued.get(id) ?? 0) + 1);
            entries.push({ due: at + o.lagMs, table, id, key: w.key, image });
          }
        }
        queue.push(...entries);
        schedule();
      })
      .catch((e: Error) => console.error(`GSI lag: a write was not copied to the lagged indexes: ${e.message}`));
  }

  async function batchGet(ddb: DynamoDBClient, table: string, keys: Av[]): Promise<Map<string, Av>> {
    const found = new Map<string, Av>();
    const def = tables.get(table)!;
    let Keys: Av[] | undefined = keys;
    while (Keys?.length) {
      const r: BatchGetItemCommandOutput = await ddb.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys, ConsistentRead: true } } }));
      for (const item of r.Responses?.[table] ?? []) found.set(idOf(table, keyOf(def, item)), item);
      Keys = r.UnprocessedKeys?.[table]?.Keys;
    }
    return found;
  }

  function schedule() {
    if (stopped || timer || draining || !queue.length) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        // A failed drain (DynamoDB Local gone: the stack stops and says why) is logged, never left unhandled,
        // and the queue is drained again a second later.
        draining = drain()
          .then(
            () => 0,
            (e: Error) => {
              if (!stopped) console.error(`GSI lag: the lagged indexes were not updated, retrying: ${e.message}`);
              return 1000;
            },
          )
          .then((pause) => {
            draining = undefined;
            if (pause) setTimeout(schedule, pause).unref();
            else schedule();
          });
      },
      Math.max(0, queue[0]!.due - Date.now()),
    );
  }

  /** Applies the due images to the lagged copy, in queue order, one batch after the other. */
  async function drain() {
    for (;;) {
      const now = Date.now();
      const n = queue.findIndex((p) => p.due > now);
      const due = queue.splice(0, n < 0 ? queue.length : n);
      if (!due.length) return;
      applying = due[0]!.due;
      const latest = new Map(due.map((p) => [p.id, p]));
      const byTable = new Map<string, WriteRequest[]>();
      for (const p of latest.values()) {
        const put = indexed(tables.get(p.table)!, p.image);
        if (!byTable.has(p.table)) byTable.set(p.table, []);
        byTable.get(p.table)!.push(put ? { PutRequest: { Item: p.image! } } : { DeleteRequest: { Key: p.key } });
        if (put) inCopy.add(p.id);
        else inCopy.delete(p.id);
      }
      for (const p of due) {
        const n = queued.get(p.id)! - 1;
        if (n) queued.set(p.id, n);
        else queued.delete(p.id);
      }
      for (const [table, reqs] of byTable) {
        for (let i = 0; i < reqs.length; i += 25) await batchWrite(o.ddb, laggedName(table), reqs.slice(i, i + 25));
      }
      applying = undefined;
    }
  }

  /**
   * Resolves once every write acknowledged up to `at` is in the lagged copy: what an index read sent then would
   * see in AWS after its lag. Writes acknowledged later do not hold it back (a shared stack is never idle).
   */
  async function settledThrough(at: number) {
    const through = at + o.lagMs;
    await recording;
    while (queue.some((p) => p.due <= through) || (applying !== undefined && applying <= through))
      await new Promise((r) => setTimeout(r, Math.max(10, o.lagMs / 4)));
  }

  function forward(req: IncomingMessage, body: Buffer, retried = false): Promise<{ status: number; headers: Headers; body: Buffer }> {
    return new Promise((resolve, reject) => {
      // Hop-by-hop headers are the client's connection's, not DynamoDB Local's (RFC 9110, 7.6.1): a forwarded
      // `Connection: close` had it close a socket the layer's pool went on to reuse.
      const hopByHop = new Set([
        ...HOP_BY_HOP,
        ...String(req.headers.connection ?? '')
          .split(',')
          .map((h) => h.trim().toLowerCase()),
      ]);
      const rest = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !hopByHop.has(k)));
      const headers = { ...rest, host: target.host, 'content-length': String(body.length) };
      // A HEAD is asked as a GET and answered without the body (Node writes none to a HEAD): DynamoDB Local's server
      // answers a HEAD it refuses with a body, which no HTTP client can read, and the layer answered 500.
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      const out = httpRequest({ host: target.hostname, port: target.port, path: req.url, method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 500, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      out.on('error', (e: NodeJS.ErrnoException) => {
        // A pooled connection DynamoDB Local closed meanwhile: asked again once on a new one (Node's own advice for keep-alive agents).
        if (out.reusedSocket && e.code === 'ECONNRESET' && !retried) forward(req, body, true).then(resolve, reject);
        else reject(e);
      });
      out.end(body);
    });
  }

  function reply(res: ServerResponse, status: number, headers: Headers, body: Buffer) {
    const { 'transfer-encoding': _te, ...rest } = headers;
    const h: Headers = { ...rest, 'content-length': String(body.length) };
    // The SDK may check x-amz-crc32 against the body: a body this layer rewrote gets its own.
    if (h['x-amz-crc32'] !== undefined) h['x-amz-crc32'] = String(crc32(body));
    res.writeHead(status, h);
    res.end(body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    // The layer's one path of its own, for tests that must read an index past its lag: it answers once the writes
    // acknowledged before it are in the copy (SETTLED_PATH), instead of a sleep that a loaded machine outlasts.
    if (req.method === 'GET' && req.url === SETTLED_PATH) {
      await settledThrough(Date.now());
      return reply(res, 200, { 'content-type': 'application/json' }, Buffer.from('{"settled":true}'));
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body = Buffer.concat(chunks);
    const refusal = unreadableByDynamo(req.headers, body);
    if (refusal) return reply(res, 400, { 'content-type': 'application/x-amz-json-1.0' }, Buffer.from(JSON.stringify(refusal)));
    const op = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    // Unsigned, the request is DynamoDB Local's to refuse (MissingAuthenticationToken): its body is read for nothing.
    const input: Json = op === 'Query' || op === 'Scan' || WRITES.has(op) ? (jsonObject(body.toString('utf8')) ?? {}) : {};

    // An index read goes to the copy's index (DynamoDB Local itself refuses ConsistentRead on a GSI, as AWS does).
    const table = input.TableName as string | undefined;
    if ((op === 'Query' || op === 'Scan') && input.IndexName && table && tables.has(table)) {
      body = Buffer.from(JSON.stringify({ ...input, TableName: laggedName(table) }));
      const r = await forward(req, body);
      // The copy's name never reaches the caller (ConsumedCapacity names the table).
      const text = r.body
        .toString('utf8')
        .split(JSON.stringify(laggedName(table)))
        .join(JSON.stringify(table));
      return reply(res, r.status, r.headers, Buffer.from(text));
    }

    const r = await forward(req, body);
    // The lag runs from the acknowledgement, as in AWS.
    if (WRITES.has(op) && r.status === 200) record(written(op, input), Date.now());
    reply(res, r.status, r.headers, r.body);
  }

  const server = refuseTunnels(
    createServer((req, res) => {
      handle(req, res).catch((e: Error) => {
        if (res.headersSent) return res.destroy();
        reply(
          res,
          500,
          { 'content-type': 'application/x-amz-json-1.0' },
          Buffer.from(JSON.stringify({ __type: 'InternalServerError', message: `GSI lag proxy: ${e.message}` })),
        );
      });
    }),
  );
  await new Promise<void>((resolve) => server.listen(o.port, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${o.port}`,
    lagMs: o.lagMs,
    settled: () => settledThrough(Date.now()),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await recording;
      await draining?.catch(() => undefined);
      await closeServer(server);
      agent.destroy();
    },
  };
}

async function batchWrite(ddb: DynamoDBClient, table: string, reqs: WriteRequest[]) {
  let left: WriteRequest[] | undefined = reqs;
  while (left?.length) {
    const r: BatchWriteItemCommandOutput = await ddb.send(new BatchWriteItemCommand({ RequestItems: { [table]: left } }));
    left = r.UnprocessedItems?.[table];
  }
}

async function dropTable(ddb: DynamoDBClient, name: string) {
  try {
    await ddb.send(new DeleteTableCommand({ TableName: name }));
  } catch (e) {
    if (!(e instanceof ResourceNotFoundException)) throw e;
  }
}

/** A fresh lagged copy of `def`: its key schema and indexes, and the items of the table that carry an index key (resolved to their keys). */
async function buildCopy(ddb: DynamoDBClient, def: TableDef): Promise<Av[]> {
  const name = laggedName(def.name);
  await dropTable(ddb, name);
  const t = (await ddb.send(new DescribeTableCommand({ TableName: def.name }))).Table!;
  await ddb.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: t.AttributeDefinitions,
      KeySchema: t.KeySchema,
      GlobalSecondaryIndexes: t.GlobalSecondaryIndexes?.map((g) => ({ IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection })),
    }),
  );
  const names: Record<string, string> = {};
  const filter = def.indexes.map((i, n) => {
    names[`#i${n}`] = i.partitionKey;
    return `attribute_exists(#i${n})`;
  });
  const copied: Av[] = [];
  let ExclusiveStartKey: Av | undefined;
  do {
    const r = await ddb.send(
      new ScanCommand({ TableName: def.name, ConsistentRead: true, FilterExpression: filter.join(' OR '), ExpressionAttributeNames: names, ExclusiveStartKey }),
    );
    copied.push(...(r.Items ?? []));
    const reqs = (r.Items ?? []).map((Item) => ({ PutRequest: { Item } }));
    for (let i = 0; i < reqs.length; i += 25) await batchWrite(ddb, name, reqs.slice(i, i + 25));
    ExclusiveStartKey = r.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return copied;
}
