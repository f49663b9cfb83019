import { Duration, Stack } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnSubscriptionFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { REQUEST_LOG_ASYNC } from '../../shared/async-invocations';
import { TABLES } from '../../shared/db/tables';
import { REQUEST_LOG_CONSUMER, REQUEST_LOG_FILTER_PATTERN } from '../../shared/request-logs/entry';
import { REQUEST_LOG_LEADING_KEYS } from '../../shared/request-logs/keys';
import { type AsyncTarget, invokedAsynchronously } from './async-invocation';
import { ServiceFunction } from './service-function';

/**
 * The partners' request log, off the requests' path: each keyed route function writes one marked JSON line
 * per request to its log group (shared/request-logs/line.ts), and a CloudWatch Logs subscription filter on that
 * log group (one of the two a log group may have) hands those lines to one consumer, which BatchWrites them
 * into the data table. The consumer may write only the request log's partitions; CloudWatch Logs may invoke it
 * only for this stack's log groups. CloudWatch Logs invokes it asynchronously: a delivery that fails its three
 * attempts goes to the consumer's on-failure queue.
 */
export class RequestLogsConstruct extends Construct {
  readonly consumer: ServiceFunction;
  readonly async: AsyncTarget;

  /** `onFailure`: the consumer's on-failure queue, made in the service stack (a stateful resource). */
  constructor(scope: Construct, id: string, props: { table: TableV2; logGroups: Record<string, ILogGroup>; onFailure: Queue }) {
    super(scope, id);
    this.consumer = new ServiceFunction(this, 'Consumer', {
      entry: REQUEST_LOG_CONSUMER,
      description: "Request log: saves the route functions' request log lines",
      timeout: Duration.seconds(30),
    });
    this.consumer.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:BatchWriteItem'],
        resources: [props.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': REQUEST_LOG_LEADING_KEYS } },
      }),
    );
    this.consumer.addEnvironment(TABLES.data.envVar, props.table.tableName);
    this.async = invokedAsynchronously(this.consumer, REQUEST_LOG_ASYNC, props.onFailure);
    // One permission for every log group of the service stack (CloudFormation names them <stack name>-...):
    // one per log group would outgrow the function's 20 KB resource policy.
    const { account, region, partition, stackName } = Stack.of(props.table);
    this.consumer.addPermission('LogsInvoke', {
      principal: new ServicePrincipal('logs.amazonaws.com'),
      sourceArn: `arn:${partition}:logs:${region}:${account}:log-group:${stackName}-*`,
      sourceAccount: account,
    });
    for (const [routeId, logGroup] of Object.entries(props.logGroups)) {
      const filter = new CfnSubscriptionFilter(this, `${routeId}Filter`, {
        logGroupName: logGroup.logGroupName,
        filterName: 'request-log',
        filterPattern: REQUEST_LOG_FILTER_PATTERN,
        destinationArn: this.consumer.functionArn,
      });
      // CloudWatch Logs checks it may invoke the destination when the filter is made.
      filter.node.addDependency(this.consumer.permissionsNode.findChild('LogsInvoke'));
    }
  }
}
