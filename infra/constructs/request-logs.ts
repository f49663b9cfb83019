import { Duration, Stack } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnSubscriptionFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { TABLES } from '../../shared/db/tables';
import { REQUEST_LOG_FILTER_PATTERN } from '../../shared/request-logs/entry';
import { REQUEST_LOG_LEADING_KEYS } from '../../shared/request-logs/keys';
import { ServiceFunction } from './service-function';

/** The consumer's handler entry (the local runtime delivers to it too: infra/local/log-subscriptions.ts). */
export const REQUEST_LOG_CONSUMER = 'functions/request-logs/ingest.ts';

/**
 * The partners' request log, off the requests' path: each keyed route function writes one marked JSON line
 * per request to its log group (shared/request-logs/line.ts), and a CloudWatch Logs subscription filter on that
 * log group (one of the two a log group may have) hands those lines to one consumer, which BatchWrites them
 * into the data table. The consumer may write only the request log's partitions; CloudWatch Logs may invoke it
 * only for this stack's log groups.
 */
export class RequestLogsConstruct extends Construct {
  readonly consumer: ServiceFunction;

  constructor(scope: Construct, id: string, props: { table: TableV2; logGroups: Record<string, ILogGroup> }) {
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
