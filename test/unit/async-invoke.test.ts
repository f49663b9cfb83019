import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AsyncSettings, asyncSettingsOf, type InvocationRecord, RETRY_WAITS_MS, startAsyncInvoker } from '../../infra/local/async-invoke';
import { freePort, type ServerHandle, startSqs } from '../../infra/local/services';
import { ASYNC_INVOCATIONS, REQUEST_LOG_ASYNC } from '../../shared/async-invocations';
import { attempts } from '../fixtures/async-function';

// Lambda's asynchronous invocation as the local runtime runs it, against the real local SQS server.
const creds = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
const FN = 'test/fixtures/async-function.ts';
const FN_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:asyncTest';
/** 1 and 2 minutes become 300 and 600 ms. */
const SCALE = 0.005;
let server: ServerHandle;
let sqs: SQSClient;
let queue: { url: string; arn: string };
const lines: string[] = [];

beforeAll(async () => {
  server = await startSqs(await freePort());
  sqs = new SQSClient({ ...creds, endpoint: server.endpoint });
  const url = (await sqs.send(new CreateQueueCommand({ QueueName: 'asyncTest-failures' }))).QueueUrl!;
  queue = { url, arn: (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn! };
});
afterAll(async () => {
  await server.stop();
});

const invoker = (s: Partial<AsyncSettings> = {}, waitScale = SCALE) =>
  startAsyncInvoker({
    sqs,
    settings: () => ({ functionArn: FN_ARN, retryAttempts: 2, maxEventAgeSeconds: 3600, onFailure: queue, ...s }),
    log: (l) => lines.push(l),
    waitScale,
  });
const run = (id: string, failures: number, ms?: number) => ({ id, failures, ...(ms ? { ms } : {}) });
const tried = (id: string) => attempts.filter((a) => a.id === id);

/** The records on the on-failure queue whose event has this id. */
async function records(id: string): Promise<InvocationRecord[]> {
  const out: InvocationRecord[] = [];
  for (;;) {
    const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!r.Messages?.length) return out.filter((rec) => (rec.requestPayload as { id: string }).id === id);
    out.push(...r.Messages.map((m) => JSON.parse(m.Body!) as InvocationRecord));
  }
}

describe("Lambda's asynchronous invocation, locally", () => {
  it('tries a failing event three times, 1 then 2 minutes apart (scaled), with one request id, then puts its record on the on-failure queue', async () => {
    const outcome = await invoker().invoke(FN, run('always', 9), { name: 'asyncTest', timeoutMs: 1000 });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 3, sentTo: queue.arn });
    const mine = tried('always');
    expect(mine).toHaveLength(3);
    expect(new Set(mine.map((a) => a.requestId)).size).toBe(1);
    expect(mine[1]!.at - mine[0]!.at).toBeGreaterThanOrEqual(RETRY_WAITS_MS[0] * SCALE);
    expect(mine[2]!.at - mine[1]!.at).toBeGreaterThanOrEqual(RETRY_WAITS_MS[1] * SCALE);
    const [record, ...more] = await records('always');
    expect(more).toEqual([]);
    expect(record).toEqual({
      version: '1.0',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      requestContext: { requestId: mine[0]!.requestId, functionArn: `${FN_ARN}:$LATEST`, condition: 'RetriesExhausted', approximateInvokeCount: 3 },
      requestPayload: run('always', 9),
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      responsePayload: { errorType: 'RangeError', errorMessage: 'attempt 3 of always failed', trace: expect.any(Array) },
    });
    expect(record!.responsePayload.trace[0]).toBe('RangeError: attempt 3 of always failed');
  });

  it('runs an event that fails once a second time, and puts nothing on the queue', async () => {
    const outcome = await invoker().invoke(FN, run('once', 1), { name: 'asyncTest', timeoutMs: 1000 });
    expect(outcome).toEqual({ status: 'succeeded', attempts: 2 });
    expect(tried('once')).toHaveLength(2);
    expect(await records('once')).toEqual([]);
  });

  it('the retry count is the function setting: none, and the first failure is the record', async () => {
    const outcome = await invoker({ retryAttempts: 0 }).invoke(FN, run('no-retry', 9), { name: 'asyncTest', timeoutMs: 1000 });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1 });
    expect(tried('no-retry')).toHaveLength(1);
    expect((await records('no-retry')).map((r) => r.requestContext)).toEqual([
      expect.objectContaining({ condition: 'RetriesExhausted', approximateInvokeCount: 1 }),
    ]);
  });

  it('does not run again an event older than its maximum age when its retry comes: EventAgeExceeded', async () => {
    // 300 ms of work and 300 ms of wait: older than 0.5 s by the second attempt.
    const outcome = await invoker({ maxEventAgeSeconds: 0.5 }).invoke(FN, run('aged', 9, 300), { name: 'asyncTest', timeoutMs: 1000 });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 1 });
    expect(tried('aged')).toHaveLength(1);
    const [record] = await records('aged');
    expect(record!.requestContext).toMatchObject({ condition: 'EventAgeExceeded', approximateInvokeCount: 1 });
    expect(record!.responsePayload.errorMessage).toBe('attempt 1 of aged failed');
  });

  it('without an on-failure destination, discards the event and says so', async () => {
    const outcome = await invoker({ onFailure: undefined }).invoke(FN, run('discarded', 9), { name: 'asyncTest', timeoutMs: 1000 });
    expect(outcome).toMatchObject({ status: 'failed', attempts: 3 });
    expect(outcome).not.toHaveProperty('sentTo');
    expect(lines).toContain(
      '[lambda] asyncTest: asynchronous event discarded (RetriesExhausted, 3 attempt(s): attempt 3 of discarded failed); the function has no on-failure destination',
    );
  });

  it('at the stop, drops the events waiting for a retry at once and waits for the attempts under way', async () => {
    const i = invoker({}, 1); // a real minute before the retry
    const waiting = i.invoke(FN, run('waiting', 9), { name: 'asyncTest', timeoutMs: 1000 });
    const running = i.invoke(FN, run('running', 0, 300), { name: 'asyncTest', timeoutMs: 1000 });
    while (tried('waiting').length === 0 || tried('running').length === 0) await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    await i.stop();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await waiting).toEqual({ status: 'dropped', attempts: 1 });
    expect(await running).toEqual({ status: 'succeeded', attempts: 1 });
    expect(await records('waiting')).toEqual([]);
  });

  it("with LOCAL_IAM=off, takes each function's settings from shared/async-invocations.ts", () => {
    const queues = Object.fromEntries(
      ASYNC_INVOCATIONS.map((d) => [d.key, { name: `${d.key}-failures`, url: `${queue.url}-${d.key}`, arn: `${queue.arn}-${d.key}` }]),
    );
    const settings = asyncSettingsOf(undefined, queues);
    expect(settings(REQUEST_LOG_ASYNC.entry)).toMatchObject({
      retryAttempts: 2,
      maxEventAgeSeconds: 6 * 3600,
      onFailure: { url: `${queue.url}-requestLog`, arn: `${queue.arn}-requestLog` },
    });
    // A function nobody configured: Lambda's defaults, nowhere to send its failures.
    expect(settings('functions/other.ts')).toEqual(expect.objectContaining({ retryAttempts: 2, maxEventAgeSeconds: 6 * 3600 }));
    expect(settings('functions/other.ts')).not.toHaveProperty('onFailure');
  });
});
