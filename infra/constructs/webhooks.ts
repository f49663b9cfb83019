import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { QUEUES, type QueueDef } from '../../shared/queues';
import { TABLES, type TableName } from '../../shared/tables';
import { ServiceFunction } from './service-function';

/**
 * Queues and their consumers: every queue has a DLQ and every consumer
 * reports partial batch failures. The webhook delivery pipeline (Scheduler
 * group and role, sweeper) is added here by the webhooks issue.
 */
export class WebhooksConstruct extends Construct {
  readonly queues: Record<string, Queue> = {};
  readonly consumers: Record<string, ServiceFunction> = {};

  constructor(scope: Construct, id: string, props: { tables: Record<TableName, TableV2>; queues?: Record<string, QueueDef> }) {
    super(scope, id);
    for (const [key, def] of Object.entries(props.queues ?? QUEUES)) {
      const dlq = new Queue(this, `${key}Dlq`, {
        retentionPeriod: Duration.days(14),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      const queue = new Queue(this, `${key}Queue`, {
        visibilityTimeout: Duration.seconds(def.visibilityTimeoutSeconds),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        deadLetterQueue: { queue: dlq, maxReceiveCount: def.maxReceiveCount },
      });
      const consumer = new ServiceFunction(this, `${key}Consumer`, { entry: def.consumer, timeout: Duration.seconds(Math.min(60, def.visibilityTimeoutSeconds)) });
      consumer.bind({
        tables: [{ table: props.tables.data, def: TABLES.data, access: 'readwrite' }],
        queues: [{ queue, envVar: def.envVar, access: 'consume' }],
      });
      consumer.addEventSource(new SqsEventSource(queue, { batchSize: def.batchSize, reportBatchItemFailures: true }));
      this.queues[key] = queue;
      this.consumers[key] = consumer;
    }
  }
}
