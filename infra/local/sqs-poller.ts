import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { functionPrincipal, runAs } from './iam/principal';
import { invoke, lambdaContext } from './lambda';

export interface PollerTarget {
  queueUrl: string;
  queueArn: string;
  /** Handler entry under functions/. */
  consumer: string;
  batchSize: number;
  /** The consumer's timeout (QueueDef `consumerTimeoutSeconds`), as its context tells it. */
  timeoutMs: number;
}

function toRecord(m: Message, arn: string): SQSRecord {
  const a = m.Attributes ?? {};
  return {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [
        k,
        {
          stringValue: v.StringValue,
          binaryValue: v.BinaryValue ? Buffer.from(v.BinaryValue).toString('base64') : undefined,
          stringListValues: [],
          binaryListValues: [],
          dataType: v.DataType ?? 'String',
        },
      ]),
    ),
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: arn,
    awsRegion: 'us-east-1',
  };
}

/**
 * The Lambda event source mapping, emulated: long-polls the queue, invokes the
 * consumer with an SQS batch event, deletes what succeeded and leaves the
 * `batchItemFailures` (or the whole batch if the handler throws) to reappear
 * after the visibility timeout, so the redrive policy moves them to the DLQ.
 */
export function startPoller(sqs: SQSClient, target: PollerTarget, log: (line: string) => void, onGone?: (queueUrl: string) => void) {
  let running = true;
  let inflight: Promise<void> = Promise.resolve();
  // The event source mapping receives and deletes with the function's execution role, as in AWS.
  const asConsumer = <T>(fn: () => Promise<T>) => runAs(functionPrincipal(target.consumer), fn);
  const loop = async () => {
    while (running) {
      let messages: Message[] = [];
      try {
        const r = await asConsumer(() =>
          sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: target.queueUrl,
              MaxNumberOfMessages: Math.min(10, target.batchSize),
              // Short polls: the local server's long poll keeps collecting until the wait ends,
              // past the visibility timeout of what it already holds.
              WaitTimeSeconds: 0,
              MessageSystemAttributeNames: ['All'],
              // The local server still reads the older parameter name.
              AttributeNames: ['All'],
              MessageAttributeNames: ['All'],
            }),
          ),
        );
        messages = r.Messages ?? [];
      } catch (e) {
        if (!running) return;
        // The queue itself is gone: nothing this poller can do (the stack stops, saying so).
        if (onGone && (e as Error).name === 'QueueDoesNotExist') return onGone(target.queueUrl);
        log(`[sqs] receive failed on ${target.queueUrl}: ${(e as Error).message}`);
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (messages.length === 0) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      const event: SQSEvent = { Records: messages.map((m) => toRecord(m, target.queueArn)) };
      let failed = new Set<string>();
      try {
        const res = await invoke<{ batchItemFailures?: { itemIdentifier: string }[] } | undefined>(
          target.consumer,
          event,
          lambdaContext(target.consumer, target.timeoutMs),
        );
        failed = new Set((res?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      } catch (e) {
        log(`[sqs] consumer ${target.consumer} threw: ${(e as Error).message}`);
        failed = new Set(messages.map((m) => m.MessageId!));
      }
      const done = messages.filter((m) => !failed.has(m.MessageId!));
      if (done.length > 0) {
        const del = await asConsumer(() =>
          sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: target.queueUrl,
              Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
            }),
          ),
        ).catch((e: Error) => {
          log(`[sqs] delete failed on ${target.queueUrl}: ${e.message}`);
          return { Failed: [] };
        });
        for (const f of del.Failed ?? []) log(`[sqs] delete failed on ${target.queueUrl}: ${f.Code} ${f.Message ?? ''}`);
      }
    }
  };
  inflight = loop();
  return {
    stop: async () => {
      running = false;
      await inflight.catch(() => undefined);
    },
  };
}
