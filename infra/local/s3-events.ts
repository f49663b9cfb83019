import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { BUCKETS } from '../../shared/buckets';
import { LOCAL_ACCOUNT } from './iam/model';
import { runAs } from './iam/principal';
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
      // Sent by S3 itself: the queue's resource policy must let s3.amazonaws.com send for this bucket.
      runAs('service:s3.amazonaws.com', () => sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: JSON.stringify({ Records: [record] }) })), {
        'aws:SourceArn': `arn:aws:s3:::${record.s3.bucket.name}`,
        'aws:SourceAccount': LOCAL_ACCOUNT,
      }).catch((e: Error) => log(`S3 event for ${record.s3.object.key} not forwarded: ${e.message}`));
    }
  };
}
