import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { invocationObservers } from '../infra/local/lambda';

// The SDK's clients are CommonJS: their base class is the one `require` loads (an ESM import would load another copy).
const { Client } = createRequire(import.meta.url)('@smithy/core/client') as {
  Client: { prototype: { send: (this: any, command: any, ...rest: any[]) => any } };
};

/**
 * What AWS would bill, counted in this process while the local stack runs in
 * it: every AWS SDK call of every client (by service and operation), the
 * DynamoDB read and write units each call consumed (ReturnConsumedCapacity
 * TOTAL is added to every DynamoDB call; DynamoDB Local answers with the units
 * DynamoDB would charge), every Lambda invocation with its duration (the local
 * runtime's invocation observers), and the bytes the functions logged (the
 * local stand-in for CloudWatch Logs). `snapshot()` copies the counts;
 * `diff` subtracts two.
 */
export interface Usage {
  /** "Service Operation" -> calls, e.g. "SQS SendMessageBatch", "DynamoDB TransactWriteItems". */
  calls: Record<string, number>;
  /** SQS messages sent (a batch of 10 is 10 messages, and 1 request). */
  sqsMessages: number;
  readUnits: number;
  writeUnits: number;
  /** "DynamoDB Operation" -> read and write units of those calls. */
  units: Record<string, { read: number; write: number }>;
  /** Function entry -> invocations and milliseconds. */
  lambda: Record<string, { n: number; ms: number }>;
  logBytes: number;
}

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
/** lib-dynamodb's command names, as the low-level operation they send. */
const DOCUMENT_OPS: Record<string, string> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchGet: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem',
  TransactGet: 'TransactGetItems',
  TransactWrite: 'TransactWriteItems',
  Query: 'Query',
  Scan: 'Scan',
};
const CAPACITY_OPS = new Set(Object.values(DOCUMENT_OPS));

interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/** The read and write units of a call's ConsumedCapacity (one object, or one per table for batches and transactions). */
export function unitsOf(operation: string, consumed: Capacity | Capacity[] | undefined): { read: number; write: number } {
  let read = 0;
  let write = 0;
  for (const c of consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed]) {
    if (c.ReadCapacityUnits !== undefined || c.WriteCapacityUnits !== undefined) {
      read += c.ReadCapacityUnits ?? 0;
      write += c.WriteCapacityUnits ?? 0;
    } else if (READS.has(operation)) read += c.CapacityUnits ?? 0;
    else write += c.CapacityUnits ?? 0;
  }
  return { read, write };
}

export function startMeter(logFile: string) {
  const usage: Usage = { calls: {}, sqsMessages: 0, readUnits: 0, writeUnits: 0, units: {}, lambda: {}, logBytes: 0 };
  const original = Client.prototype.send;
  Client.prototype.send = function (this: any, command: any, ...rest: any[]) {
    const service = String(this.constructor.name)
      .replace(/Client$/, '')
      .replace(/^DynamoDBDocument$/, 'DynamoDB');
    const name = String(command.constructor.name).replace(/Command$/, '');
    const operation = service === 'DynamoDB' ? (DOCUMENT_OPS[name] ?? name) : name;
    const key = `${service} ${operation}`;
    usage.calls[key] = (usage.calls[key] ?? 0) + 1;
    if (operation === 'SendMessage') usage.sqsMessages++;
    if (operation === 'SendMessageBatch') usage.sqsMessages += command.input.Entries?.length ?? 0;
    if (service === 'DynamoDB' && CAPACITY_OPS.has(operation)) command.input.ReturnConsumedCapacity ??= 'TOTAL';
    const sent = original.call(this, command, ...rest);
    if (!(sent instanceof Promise)) return sent;
    return sent.then((out: { ConsumedCapacity?: Capacity | Capacity[] }) => {
      const u = unitsOf(operation, out?.ConsumedCapacity);
      usage.readUnits += u.read;
      usage.writeUnits += u.write;
      const o = usage.units[key] ?? { read: 0, write: 0 };
      usage.units[key] = { read: o.read + u.read, write: o.write + u.write };
      return out;
    });
  } as typeof original;
  const observe = (entry: string, ms: number) => {
    const f = usage.lambda[entry] ?? { n: 0, ms: 0 };
    usage.lambda[entry] = { n: f.n + 1, ms: f.ms + ms };
  };
  invocationObservers.add(observe);
  const logSize = () => (existsSync(logFile) ? statSync(logFile).size : 0);
  const logStart = logSize();
  return {
    snapshot(): Usage {
      return { ...structuredClone(usage), logBytes: logSize() - logStart };
    },
    stop() {
      Client.prototype.send = original;
      invocationObservers.delete(observe);
    },
  };
}

/** b - a, per count. */
export function diff(b: Usage, a: Usage): Usage {
  const sub = (x: Record<string, number>, y: Record<string, number>) =>
    Object.fromEntries(
      Object.keys(x)
        .map((k) => [k, x[k]! - (y[k] ?? 0)] as const)
        .filter(([, v]) => v !== 0),
    );
  const units: Usage['units'] = {};
  for (const [k, v] of Object.entries(b.units)) {
    const u = { read: v.read - (a.units[k]?.read ?? 0), write: v.write - (a.units[k]?.write ?? 0) };
    if (u.read !== 0 || u.write !== 0) units[k] = u;
  }
  const lambda: Usage['lambda'] = {};
  for (const [k, v] of Object.entries(b.lambda)) {
    const n = v.n - (a.lambda[k]?.n ?? 0);
    if (n !== 0) lambda[k] = { n, ms: v.ms - (a.lambda[k]?.ms ?? 0) };
  }
  return {
    calls: sub(b.calls, a.calls),
    sqsMessages: b.sqsMessages - a.sqsMessages,
    readUnits: b.readUnits - a.readUnits,
    writeUnits: b.writeUnits - a.writeUnits,
    units,
    lambda,
    logBytes: b.logBytes - a.logBytes,
  };
}
