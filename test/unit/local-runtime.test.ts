import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateScheduleCommand, GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHandler } from '../../infra/local/lambda';
import { startScheduler } from '../../infra/local/scheduler';
import { freePort, type ServerHandle, startSqs } from '../../infra/local/services';
import { startPoller } from '../../infra/local/sqs-poller';
import { seen } from '../fixtures/flaky-consumer';

// The emulated parts of AWS (event source mapping, Scheduler) against the real local SQS server.
const creds = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
let sqsServer: ServerHandle;
let sqs: SQSClient;
let queueUrl: string;
let queueArn: string;
let dlqUrl: string;
const stops: (() => Promise<void>)[] = [];
let dir: string;

const until = async (cond: () => boolean | Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ptbs-rt-'));
  sqsServer = await startSqs(await freePort());
  sqs = new SQSClient({ ...creds, endpoint: sqsServer.endpoint });
  dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'rt-dlq' }))).QueueUrl!;
  const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  queueUrl = (
    await sqs.send(
      new CreateQueueCommand({
        QueueName: 'rt-main',
        Attributes: { VisibilityTimeout: '1', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }) },
      }),
    )
  ).QueueUrl!;
  queueArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  // Warm the consumer as a Lambda container would be; a cold import could outlast the 1 s visibility timeout.
  await loadHandler('test/fixtures/flaky-consumer.ts');
  const poller = startPoller(sqs, { queueUrl, queueArn, consumer: 'test/fixtures/flaky-consumer.ts', batchSize: 10, timeoutMs: 1_000 }, () => undefined);
  stops.push(poller.stop);
});

afterAll(async () => {
  for (const s of stops) await s();
  await sqsServer.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('SQS poller (event source mapping emulation)', () => {
  it('deletes what succeeded once, redelivers batch item failures and dead-letters them after maxReceiveCount', async () => {
    for (const body of ['ok-1', 'ok-2', 'fail-1']) await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    await until(() => seen.filter((s) => s.body === 'fail-1').length >= 2);
    // After the 2nd failed receive the redrive policy moves it to the DLQ.
    let dlqBodies: string[] = [];
    await until(async () => {
      const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      dlqBodies = dlqBodies.concat((r.Messages ?? []).map((m) => m.Body!));
      return dlqBodies.includes('fail-1');
    });
    expect(seen.filter((s) => s.body === 'ok-1')).toHaveLength(1);
    expect(seen.filter((s) => s.body === 'ok-2')).toHaveLength(1);
    expect(seen.filter((s) => s.body === 'fail-1').map((s) => s.receiveCount)).toEqual([1, 2]);
  });
});

describe('EventBridge Scheduler emulation', () => {
  it("sends a one-time schedule's input to its SQS target in the minute of its time, as early as AWS may (its start), then deletes it", async () => {
    const sched = await startScheduler({
      port: await freePort(),
      file: join(dir, 'schedules.json'),
      groups: ['webhooks'],
      sqs,
      queueUrlForArn: (a) => (a === queueArn ? queueUrl : undefined),
      log: () => undefined,
    });
    stops.push(sched.stop);
    const client = new SchedulerClient({ ...creds, endpoint: sched.endpoint });
    // A time 10 s ahead within the current minute (past :45, the next minute's start is waited for).
    if (Date.now() % 60_000 > 45_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 100));
    const due = new Date(Math.ceil(Date.now() / 1000) * 1000 + 10_000);
    await client.send(
      new CreateScheduleCommand({
        Name: 'retry-abc',
        GroupName: 'webhooks',
        ScheduleExpression: `at(${due.toISOString().slice(0, 19)})`,
        ScheduleExpressionTimezone: 'UTC',
        FlexibleTimeWindow: { Mode: 'OFF' },
        ActionAfterCompletion: 'DELETE',
        Target: { Arn: queueArn, RoleArn: 'arn:aws:iam::123456789012:role/scheduler', Input: 'scheduled-1' },
      }),
    );
    expect((await client.send(new GetScheduleCommand({ Name: 'retry-abc', GroupName: 'webhooks' }))).State).toBe('ENABLED');
    await until(() => seen.some((s) => s.body === 'scheduled-1'));
    const firstSeen = seen.find((s) => s.body === 'scheduled-1')!.at;
    // AWS's Scheduler may invoke the target from the start of the minute: what the worker must expect of a retry.
    expect(firstSeen).toBeGreaterThanOrEqual(Math.floor(due.getTime() / 60_000) * 60_000);
    expect(firstSeen).toBeLessThan(due.getTime() - 5_000);
    await expect(client.send(new GetScheduleCommand({ Name: 'retry-abc', GroupName: 'webhooks' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    // As in AWS, a schedule in a group that does not exist (another stack's, a wrong SCHEDULER_GROUP) is refused.
    await expect(
      client.send(
        new CreateScheduleCommand({
          Name: 'retry-def',
          GroupName: 'OtherStack-webhook-retries',
          ScheduleExpression: `at(${due.toISOString().slice(0, 19)})`,
          FlexibleTimeWindow: { Mode: 'OFF' },
          Target: { Arn: queueArn, RoleArn: 'arn:aws:iam::123456789012:role/scheduler', Input: 'never' },
        }),
      ),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException', message: 'Schedule group OtherStack-webhook-retries does not exist.' });
  }, 40_000);
});
