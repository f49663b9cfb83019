import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { BUCKETS } from '../../shared/buckets';
import type { ProvisionedQueue } from './provision';
import type { S3Notification } from './services';

/**
 * The S3 bucket notification of AWS, for s3rver: an object created under one
 * of a bucket's `notify.prefixes` (shared/buckets.ts) is sent, as the S3 event JSON,
 * to the named queue; its poller then invokes the consumer as Lambda would.
 */
export function forwardS3Events(sqs: SQSClient, queues: Record<string, ProvisionedQueue>, log: (line: string) => void) {
  const routes = Object.values(BUCKETS).flatMap((b) => (b.notify ? [{ bucket: b.name, ...b.notify }] : []));
  return (event: S3Notification) => {
    for (const record of event.Records) {
      if (!record.eventName.startsWith('ObjectCreated:')) continue;
      const to = routes.find((r) => r.bucket === record.s3.bucket.name && r.prefixes.some((p) => record.s3.object.key.startsWith(p)));
      const queue = to && queues[to.queue];
      if (!queue) continue;
      sqs
        .send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: JSON.stringify({ Records: [record] }) }))
        .catch((e: Error) => log(`S3 event for ${record.s3.object.key} not forwarded: ${e.message}`));
    }
  };
}
