import { describe, expect, it } from 'vitest';
import { ACCESS_LOG_BYTES, costOf, PLATFORM_LOG_BYTES, PRICES } from '../../bench/cost';
import { memoryGrowth } from '../../bench/lib';
import { diff, type Usage, unitsOf } from '../../bench/meter';

describe('bench: memory growth over a soak', () => {
  const samples = (heap: (t: number) => number, seconds = 300) =>
    Array.from({ length: seconds / 10 + 1 }, (_, k) => ({ t: k * 10, rss: 200 + heap(k * 10), heap: heap(k * 10) }));

  it('leaves out the warm-up, compares the mean of the second half with the first, per minute between their mean times', () => {
    // Flat at 50 MB after a warm-up that climbs from 0: the climb is not growth.
    const g = memoryGrowth(
      samples((t) => (t < 60 ? t : 50)),
      60,
    );
    expect(g.verdict).toBe('flat');
    if (g.verdict === 'too short') throw new Error('unreachable');
    expect(g.first.heap).toBe(50);
    expect(g.perMinute.heap).toBe(0);
  });

  it('calls a heap that grows 2 MB a minute a leak, and measures that rate', () => {
    const g = memoryGrowth(
      samples((t) => 50 + (2 * t) / 60),
      60,
    );
    expect(g.verdict).toBe('grows');
    if (g.verdict === 'too short') throw new Error('unreachable');
    expect(g.perMinute.heap).toBeCloseTo(2, 9);
    expect(g.perMinute.rss).toBeCloseTo(2, 9);
  });

  it('does not call noise under the limit a leak, and says when there are too few samples', () => {
    expect(
      memoryGrowth(
        samples((t) => 50 + (0.5 * t) / 60),
        60,
      ).verdict,
    ).toBe('flat');
    expect(
      memoryGrowth(
        samples((t) => 50 + t, 30),
        20,
      ).verdict,
    ).toBe('too short');
  });
});

describe('bench: DynamoDB units of a call', () => {
  it('reads the split when DynamoDB gives it, else counts CapacityUnits as reads or writes by operation', () => {
    expect(unitsOf('GetItem', { CapacityUnits: 0.5 })).toEqual({ read: 0.5, write: 0 });
    expect(unitsOf('TransactWriteItems', [{ CapacityUnits: 4 }, { CapacityUnits: 2 }])).toEqual({ read: 0, write: 6 });
    expect(unitsOf('UpdateItem', { CapacityUnits: 1, ReadCapacityUnits: 0, WriteCapacityUnits: 1 })).toEqual({ read: 0, write: 1 });
    expect(unitsOf('PutItem', undefined)).toEqual({ read: 0, write: 0 });
  });
});

describe('bench: cost of a unit of work', () => {
  const usage = (over: Partial<Usage>): Usage => ({ calls: {}, sqsMessages: 0, readUnits: 0, writeUnits: 0, units: {}, lambda: {}, logBytes: 0, ...over });

  it('subtracts usages count by count', () => {
    const a = usage({ calls: { 'SQS SendMessage': 1 }, readUnits: 2, units: { 'DynamoDB GetItem': { read: 2, write: 0 } }, lambda: { f: { n: 1, ms: 10 } } });
    const b = usage({
      calls: { 'SQS SendMessage': 3, 'S3 PutObject': 1 },
      readUnits: 5,
      units: { 'DynamoDB GetItem': { read: 2, write: 0 }, 'DynamoDB Query': { read: 3, write: 0 } },
      lambda: { f: { n: 3, ms: 40 }, g: { n: 1, ms: 5 } },
    });
    expect(diff(b, a)).toEqual(
      usage({
        calls: { 'SQS SendMessage': 2, 'S3 PutObject': 1 },
        readUnits: 3,
        units: { 'DynamoDB Query': { read: 3, write: 0 } },
        lambda: { f: { n: 2, ms: 30 }, g: { n: 1, ms: 5 } },
      }),
    );
  });

  it('prices GB-seconds at each function memory, SQS consumers at one receive and one delete per invocation, and divides by the units', () => {
    const c = costOf(
      {
        name: 'x',
        apiRequests: 4,
        memory: (e) => (e.includes('worker') ? 1536 : 512),
        usage: usage({
          calls: { 'SQS SendMessageBatch': 2, 'SQS ReceiveMessage': 99, 'S3 PutObject': 2, 'S3 GetObject': 2, 'DynamoDB GetItem': 6 },
          sqsMessages: 4,
          readUnits: 3,
          writeUnits: 8,
          units: { 'DynamoDB GetItem': { read: 3, write: 0 }, 'DynamoDB TransactWriteItems': { read: 0, write: 8 } },
          lambda: { 'functions/api.ts': { n: 4, ms: 400 }, 'functions/webhooks/worker.ts': { n: 2, ms: 1000 } },
          logBytes: 2000,
        }),
      },
      2,
    );
    expect(c.invocations).toBe(3);
    expect(c.gbSeconds).toBeCloseTo((0.5 * 0.4 + 1.5 * 1) / 2, 12);
    expect(c.sqsRequests).toBe(1 + 2); // one batch send each, and the consumer's receive and delete
    expect([c.s3Put, c.s3Get, c.dynamoCalls, c.rru, c.wru]).toEqual([1, 1, 3, 1.5, 4]);
    expect(c.logBytes).toBe(1000 + 3 * PLATFORM_LOG_BYTES + 2 * ACCESS_LOG_BYTES);
    expect(c.units['DynamoDB GetItem']).toEqual({ calls: 3, read: 1.5, write: 0 });
    expect(c.usd.dynamo).toBeCloseTo(1.5 * PRICES.dynamoRead + 4 * PRICES.dynamoWrite, 15);
    expect(c.total).toBeCloseTo(
      Object.values(c.usd).reduce((a, b) => a + b, 0),
      15,
    );
  });
});
