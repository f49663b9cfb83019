import { createHash } from 'node:crypto';
import { CfnOutput, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TABLES, type TableName } from '../../shared/db/tables';
import { QUEUES, type QueueDef } from '../../shared/queues';
import { markLocal } from './local-names';
import { nagResource } from './nag';
import { ServiceFunction } from './service-function';

const RETRY_GROUP_SUFFIX = '-webhook-retries';
/** EventBridge Scheduler's limit on a group name ([0-9a-zA-Z-_.], 1 to 64 characters). */
const GROUP_NAME_MAX = 64;

/**
 * The retry schedules' group of a stack: `<stack name>-webhook-retries`, so that two stacks in one account and
 * region (production, staging) each have their own. A stack name too long for the group's 64 characters is cut
 * and told apart by a hash of the whole name.
 */
export function retryScheduleGroupName(stackName: string): string {
  const name = `${stackName}${RETRY_GROUP_SUFFIX}`;
  if (name.length <= GROUP_NAME_MAX) return name;
  const hash = createHash('sha256').update(stackName).digest('hex').slice(0, 8);
  return `${stackName.slice(0, GROUP_NAME_MAX - RETRY_GROUP_SUFFIX.length - hash.length - 1)}-${hash}${RETRY_GROUP_SUFFIX}`;
}

/**
 * Queues and their consumers (every queue has a DLQ, every consumer reports
 * partial batch failures), and for the webhook queue the retry machinery:
 * an EventBridge Scheduler group of the stack's own (retryScheduleGroupName)
 * whose one-time schedules put the next attempt on the queue through a role
 * that may only send to it.
 */
export class WebhooksConstruct extends Construct {
  readonly queues: Record<string, Queue> = {};
  readonly dlqs: Record<string, Queue> = {};
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
      markLocal(queue, `queue:${key}`);
      markLocal(dlq, `dlq:${key}`);
      const consumer = new ServiceFunction(this, `${key}Consumer`, {
        entry: def.consumer,
        timeout: Duration.seconds(def.consumerTimeoutSeconds),
        ...(def.consumerMemoryMb ? { memorySize: def.consumerMemoryMb } : {}),
        pdfFonts: def.rendersPdf,
        nodeModules: def.nodeModules,
      });
      consumer.bind({
        tables: def.dataTable === 'none' ? [] : [{ table: props.tables.data, def: TABLES.data, access: 'readwrite' }],
        queues: [
          { queue, envVar: def.envVar, access: 'consume' },
          { queue, envVar: def.envVar, access: 'send' },
        ],
      });
      // Dead-lettered deliveries are also put on the DLQ explicitly, after their last attempt.
      dlq.grantSendMessages(consumer);
      consumer.addEnvironment(`${def.envVar}_DLQ`, dlq.queueUrl);
      // Capped by the mapping, not by reserved concurrency, which would subtract from the pool the API shares
      // (and fail the deploy on an account whose quota leaves less than 100 unreserved).
      consumer.addEventSource(new SqsEventSource(queue, { batchSize: def.batchSize, reportBatchItemFailures: true, maxConcurrency: def.maxConcurrency }));
      this.queues[key] = queue;
      this.dlqs[key] = dlq;
      this.consumers[key] = consumer;
      if (key === 'webhooks') {
        this.retryMachinery(queue, consumer);
        // A failing endpoint's team is e-mailed (its admins and developers, read from the members).
        consumer.bind({ tables: [{ table: props.tables.access, def: TABLES.access, access: 'read' }] });
      }
    }
  }

  private retryMachinery(queue: Queue, worker: ServiceFunction) {
    const groupName = retryScheduleGroupName(Stack.of(this).stackName);
    const group = new CfnScheduleGroup(this, 'RetryScheduleGroup', { name: groupName });
    const role = new Role(this, 'SchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com'),
      description: 'Lets webhook retry schedules put the next attempt on the webhook queue',
    });
    queue.grantSendMessages(role);
    // CreateSchedule is the worker's one Scheduler call (shared/webhooks/queue.ts), on its own stack's group only.
    const schedules = Stack.of(this).formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${groupName}/*` });
    worker.addToRolePolicy(new PolicyStatement({ actions: ['scheduler:CreateSchedule'], resources: [schedules] }));
    worker.addToRolePolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [role.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
    worker.addEnvironment('SCHEDULER_GROUP', groupName);
    worker.addEnvironment('SCHEDULER_ROLE_ARN', role.roleArn);
    worker.node.addDependency(group);
    Validations.of(worker.role!).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagResource(worker, schedules)}]`,
      reason: "One one-time schedule per retry, named after the delivery and attempt; the grant is limited to this stack's retry group.",
    });
    new CfnOutput(Stack.of(this), 'WebhookQueueUrl', { value: queue.queueUrl });
    new CfnOutput(Stack.of(this), 'WebhookDlqUrl', { value: this.dlqs.webhooks!.queueUrl });
  }
}
