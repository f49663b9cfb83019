import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { CloudWatchLogsDecodedData } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvocationRecord } from '../../infra/local/async-invoke';
import { readRuntime } from '../../infra/local/runtime-info';
import { REQUEST_LOG_CONSUMER } from '../../shared/request-logs/entry';
import { BOOT_HOOK_MS, OwnStack } from './own-stack';

/**
 * CloudWatch Logs invokes the request log's consumer asynchronously: on a stack of its own (a failing delivery
 * fails every line it holds, and the shared stack's files run at once), with the retry waits scaled to 1/10
 * (6 s and 12 s), a delivery the consumer refuses (X-Fault-Inject: request-log-fails=N) is tried three times,
 * then Lambda's record of it lands on the consumer's on-failure queue; one refused once is saved by the retry.
 */
let stack: OwnStack;
let key: string;
let sqs: SQSClient;
let queueUrl: string;
const SCALE = 0.1;

beforeAll(async () => {
  stack = await OwnStack.start('async', { FAULT_INJECTION: 'on', LAMBDA_ASYNC_WAIT_SCALE: String(SCALE) });
  key = (await stack.admin(['partner:create', '--name', 'Async Bank'])).test_key;
  const env = readRuntime(stack.stateDir, stack.port)!.env;
  sqs = new SQSClient({ region: 'us-east-1', endpoint: env.AWS_ENDPOINT_URL_SQS, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  queueUrl = (await sqs.send(new GetQueueUrlCommand({ QueueName: 'requestLog-failures' }))).QueueUrl!;
}, BOOT_HOOK_MS);
afterAll(async () => {
  await stack?.stop();
});

/** A GET whose request log line the consumer refuses `fails` times; its request id. */
async function get(path: string, fails?: number): Promise<string> {
  const res = await fetch(`${stack.base}${path}`, {
    headers: { authorization: `Bearer ${key}`, ...(fails ? { 'x-fault-inject': `request-log-fails=${fails}` } : {}) },
  });
  expect(res.status, await res.text()).toBe(200);
  return res.headers.get('x-request-id')!;
}

/** The request log's entries of a request id (0 or 1). */
const entries = async (requestId: string) => (await stack.call('GET', `/request-logs?request_id=${requestId}`, key)).body.data as unknown[];

/** The records on the on-failure queue that are visible (a record read stays hidden 30 s), with the request ids of the lines each delivery held. */
async function records(): Promise<{ record: InvocationRecord; requestIds: string[] }[]> {
  const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 30, WaitTimeSeconds: 0 }));
  return (r.Messages ?? []).map((m) => {
    const record = JSON.parse(m.Body!) as InvocationRecord;
    const { awslogs } = record.requestPayload as { awslogs: { data: string } };
    const data = JSON.parse(gunzipSync(Buffer.from(awslogs.data, 'base64')).toString('utf8')) as CloudWatchLogsDecodedData;
    return { record, requestIds: data.logEvents.map((e) => (JSON.parse(e.message) as { request_id: string }).request_id) };
  });
}

const until = async <T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: not in ${ms} ms\n${stack.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};
const printed = (text: string) => stack.output().includes(text);

describe('the request log consumer, invoked asynchronously', () => {
  it('tries a delivery it refuses every time three times without holding up the others, then puts its record on its on-failure queue', async () => {
    const failing = await get('/me', 5);
    const consumer = `[lambda] ${REQUEST_LOG_CONSUMER}`;
    await until(
      'the first attempt',
      async () => printed(`${consumer} failed (attempt 1 of 3): simulated refusal of the write of request ${failing}'s`),
      Boolean,
    );
    // While that delivery waits for its retries, another route's lines are delivered and saved: nobody waits for the consumer.
    const other = await get('/adventures?limit=1');
    await until(
      "the other request's entry",
      () => entries(other),
      (e) => e.length === 1,
    );
    expect((await records()).filter((r) => r.requestIds.includes(failing))).toEqual([]);

    const [mine, ...more] = await until(
      "the failing delivery's record",
      async () => (await records()).filter((r) => r.requestIds.includes(failing)),
      (r) => r.length > 0,
      90_000,
    );
    expect(more).toEqual([]);
    expect(mine!.record).toEqual({
      version: '1.0',
      timestamp: expect.any(String),
      requestContext: {
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        functionArn: expect.stringMatching(/^arn:aws:lambda:us-east-1:123456789012:function:RequestLogConsumer[0-9A-F]{8}:\$LATEST$/),
        condition: 'RetriesExhausted',
        approximateInvokeCount: 3,
      },
      requestPayload: { awslogs: { data: expect.any(String) } },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      responsePayload: {
        errorType: 'ProvisionedThroughputExceededException',
        errorMessage: `simulated refusal of the write of request ${failing}'s log entry, 3 of 5 (X-Fault-Inject)`,
        trace: expect.any(Array),
      },
    });
    expect(printed(`${consumer} failed (attempt 2 of 3): simulated refusal of the write of request ${failing}'s log entry, 2 of 5`)).toBe(true);
    expect(printed(`${consumer}: asynchronous event sent to its on-failure queue (RetriesExhausted, 3 attempt(s)`)).toBe(true);
    // The waits between the attempts: 1 and 2 minutes, scaled.
    expect(printed(`tried again in ${60_000 * SCALE} ms`) && printed(`tried again in ${120_000 * SCALE} ms`)).toBe(true);
    expect(await entries(failing)).toEqual([]);
  }, 180_000);

  it('saves a delivery it refused once at the retry: one entry, nothing on the on-failure queue', async () => {
    const once = await get('/me', 1);
    await until(
      'the entry',
      () => entries(once),
      (e) => e.length > 0,
      60_000,
    );
    expect(await entries(once)).toHaveLength(1);
    // Refused once, saved by the retry a minute (scaled) later: the invocation ended there.
    expect(printed(`${REQUEST_LOG_CONSUMER} failed (attempt 1 of 3): simulated refusal of the write of request ${once}'s log entry, 1 of 1`)).toBe(true);
    expect(printed(`request ${once}'s log entry, 2 of`)).toBe(false);
    expect((await records()).filter((r) => r.requestIds.includes(once))).toEqual([]);
  }, 120_000);

  it("sends the records with the consumer's role, which the IAM layer allowed: no call was refused", () => {
    const denies = join(stack.stateDir, 'iam', 'denies.jsonl');
    expect(existsSync(denies) ? readFileSync(denies, 'utf8') : '').toBe('');
    const model = JSON.parse(readFileSync(join(stack.stateDir, 'iam', 'model.json'), 'utf8')) as { asyncConfigs: Record<string, unknown> };
    expect(Object.values(model.asyncConfigs)).toContainEqual({
      maximumRetryAttempts: 2,
      maximumEventAgeInSeconds: 21_600,
      onFailure: 'arn:aws:sqs:us-east-1:123456789012:requestLog-failures',
    });
  });
});
