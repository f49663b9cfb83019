import { ArnFormat, CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { AnyPrincipal, Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { TableName } from '../../shared/db/tables';
import type { RouteDef } from '../../shared/http/route-def';
import { SERVICE_NAME } from '../../shared/kernel/logger';
import { type Dimension, METRICS_NAMESPACE, type MetricName } from '../../shared/kernel/metrics';
import { JOBS, type JobDef, QUEUES, type QueueDef } from '../../shared/queues';
import { ROUTE_LIST } from '../../shared/routes';
import { oncallOf } from '../oncall';
import { RUNBOOK, RUNBOOK_PAGE, type RunbookSection, runbookAnchor } from '../runbook';
import type { AsyncTarget } from './async-invocation';
import { RETAINED } from './retained';

export interface MonitoringProps {
  api: HttpApi;
  /** Route id -> its function. */
  routeFunctions: Record<string, IFunction>;
  fallback: IFunction;
  queues: Record<string, Queue>;
  dlqs: Record<string, Queue>;
  consumers: Record<string, IFunction>;
  /** Job id -> its function. */
  jobFunctions: Record<string, IFunction>;
  tables: Record<TableName, TableV2>;
  routes?: RouteDef[];
  queueDefs?: Record<string, QueueDef>;
  jobs?: JobDef[];
  /** Every asynchronously invoked function (shared/async-invocations.ts key -> its function and on-failure queue). */
  asyncFunctions?: Record<string, AsyncTarget>;
  /** Functions AWS services invoke outside the API, the queues and the jobs (the request log's consumer, Cognito's trigger): name -> function. */
  serviceInvoked?: Record<string, IFunction>;
}

/** Thresholds, one place; the runbook page (RUNBOOK_PAGE) gives the reason of each. */
export const THRESHOLDS = {
  /** Any message on a DLQ is work that did not happen. */
  dlqMessages: 1,
  /** Extra seconds on top of a queue's whole retry budget (visibility timeout x receives). */
  queueAgeSlackSeconds: 120,
  /** Webhook dead letters among closed live deliveries in an hour, in percent, once at least `deadLetterMinClosed` closed. */
  deadLetterRatePercent: 5,
  deadLetterMinClosed: 20,
  /** 5xx answers of a route in 5 minutes, in percent, once at least `route5xxMinErrors` of them. */
  route5xxPercent: 5,
  route5xxMinErrors: 3,
  /** Unhandled failures (crash, timeout, out of memory) of a function in 5 minutes. */
  lambdaErrors: 3,
  /** Throttled Lambda invocations in the account and region in 5 minutes. */
  lambdaThrottles: 1,
  /** Throttled DynamoDB requests of a table in 5 minutes (the SDK retries single ones). */
  dynamoThrottled: 10,
  /** DynamoDB internal errors of a table in 5 minutes. */
  dynamoSystemErrors: 5,
  /** Failed runs of a job in 15 minutes: the run and one of its two retries. */
  jobFailures: 2,
  /** E-mails SES refused in 5 minutes: each is a traveler or a partner team without its e-mail for now. */
  mailFailures: 1,
  /**
   * SES's reputation rates, fractions of 1 as SES publishes them: SES puts an account under review at a 5 %
   * bounce rate or a 0.1 % complaint rate (and may pause its sending at 10 % or 0.5 %). These fire at 2 % and
   * 0.05 %, while there is time to find the cause before the review.
   */
  sesBounceRate: 0.02,
  sesComplaintRate: 0.0005,
  /** A runtime whose time-zone data differs from the bundled rules, reported within the hour (each process reports hourly). */
  tzDataMismatch: 1,
  /** Records on an on-failure queue (or lost on the way there): each is an event whose work did not happen. */
  asyncFailures: 1,
} as const;

const FIVE_MINUTES = Duration.minutes(5);

/**
 * One of SES's reputation rates: account-wide, in the region the service sends from (the stack's), no
 * dimension; the highest value SES published in each 15 minutes. SES publishes them only once the account has
 * had a bounce or a complaint ("Creating reputation monitoring alarms using CloudWatch", SES developer guide).
 */
const sesReputation = (metricName: 'Reputation.BounceRate' | 'Reputation.ComplaintRate', label?: string) =>
  new Metric({ namespace: 'AWS/SES', metricName, statistic: 'Maximum', period: Duration.minutes(15), label });
const percent = (fraction: number) => `${+(fraction * 100).toFixed(3)} %`;
/** Every operation the service's stores use (ThrottledRequests and SystemErrors are per operation). */
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.TRANSACT_GET_ITEMS,
];

/** One of the service's own EMF metrics (shared/kernel/metrics.ts), with its dimensions besides `service` (no label: an alarm on it stays a plain metric alarm). */
export function serviceMetric(name: MetricName, dimensions: Partial<Record<Dimension, string>>, statistic: string, period = FIVE_MINUTES): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: SERVICE_NAME, ...dimensions },
    statistic,
    period,
  });
}

/** A table's per-operation metric summed over the operations the stores use (missing operations count 0). */
function tableSum(name: string, table: TableV2, metricName: 'ThrottledRequests' | 'SystemErrors'): MathExpression {
  const prefix = metricName === 'ThrottledRequests' ? 'throttled' : 'errors';
  const using = Object.fromEntries(
    TABLE_OPERATIONS.map((op) => [
      `${prefix}${op}`,
      table.metric(metricName, { dimensionsMap: { TableName: table.tableName, Operation: op }, statistic: 'Sum', period: FIVE_MINUTES }),
    ]),
  );
  return new MathExpression({
    expression: Object.keys(using)
      .map((k) => `FILL(${k}, 0)`)
      .join(' + '),
    usingMetrics: using,
    period: FIVE_MINUTES,
    label: `${name} ${metricName}`,
  });
}

const routeName = (r: RouteDef) => `${r.method} ${r.path}`;

/**
 * The on-call side of the service: an SNS topic (encrypted with a key
 * CloudWatch may use), the alarms, each pointing to its runbook section, and
 * one dashboard. Alarms and panels are generated from the route table, the
 * queues and the jobs of shared/, so a route, queue or job added later gets
 * its alarms and panels without a change here.
 */
export class MonitoringConstruct extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    // In its own nested stack (CloudFormation takes at most 500 resources per stack): names come from the service stack.
    const stack = Stack.of(this).nestedStackParent ?? Stack.of(this);
    const routes = props.routes ?? ROUTE_LIST;
    const queueDefs = props.queueDefs ?? QUEUES;
    const jobs = props.jobs ?? JOBS;

    const key = new Key(this, 'AlarmTopicKey', { enableKeyRotation: true, description: 'Encrypts the on-call alarm topic', removalPolicy: RETAINED });
    // This account's alarms, and no other's: the confused-deputy bound of CloudWatch on the key and the topic.
    const ownAlarms = {
      ArnLike: {
        'aws:SourceArn': Stack.of(this).formatArn({ service: 'cloudwatch', resource: 'alarm', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
      },
      StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
    };
    // CloudWatch publishes alarm notifications to the encrypted topic.
    key.addToResourcePolicy(
      new PolicyStatement({
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        resources: ['*'],
        conditions: ownAlarms,
      }),
    );
    // Grants on the key only for AWS services acting on AWS resources (Control Tower's CT.KMS.PR.3): nothing here makes one.
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'GrantsOnlyForAwsResources',
        effect: Effect.DENY,
        actions: ['kms:CreateGrant'],
        principals: [new AnyPrincipal()],
        resources: ['*'],
        conditions: { BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' } },
      }),
    );
    this.topic = new Topic(this, 'OnCallTopic', { displayName: 'Partner travel service on-call', masterKey: key, enforceSSL: true });
    // A topic policy replaces SNS's default one, and enforceSSL's holds only a Deny: the alarms of this account
    // must be allowed to publish, or every alarm fires into nothing.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: ownAlarms,
      }),
    );
    // Who is paged (-c oncallEmail, -c oncallTopicArn): npm run deploy refuses a stack that would page nobody.
    const oncall = oncallOf(this);
    if (oncall.email) this.topic.addSubscription(new EmailSubscription(oncall.email));
    const actions = [new SnsAction(this.topic), ...(oncall.topicArn ? [new SnsAction(Topic.fromTopicArn(this, 'OncallTopic', oncall.topicArn))] : [])];

    const alarm = (
      alarmId: string,
      o: {
        metric: IMetric;
        threshold: number;
        comparison?: ComparisonOperator;
        evaluationPeriods?: number;
        missing?: TreatMissingData;
        what: string;
        action: string;
        runbook: RunbookSection;
      },
    ) => {
      const a = new Alarm(this, alarmId, {
        alarmName: `${stack.stackName}-${alarmId}`,
        metric: o.metric,
        threshold: o.threshold,
        comparisonOperator: o.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: o.evaluationPeriods ?? 1,
        datapointsToAlarm: o.evaluationPeriods ?? 1,
        treatMissingData: o.missing ?? TreatMissingData.NOT_BREACHING,
        alarmDescription: `${o.what} Do: ${o.action} Runbook: ${RUNBOOK_PAGE}#${runbookAnchor(o.runbook)} ("${RUNBOOK[o.runbook]}").`,
      });
      a.addAlarmAction(...actions);
      a.addOkAction(...actions);
      this.alarms.push(a);
      return a;
    };

    // Queues: any dead letter, and a consumer that stopped draining.
    for (const [q, def] of Object.entries(queueDefs)) {
      const dlq = props.dlqs[q]!;
      alarm(`${q}DlqNotEmpty`, {
        metric: dlq.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: Duration.minutes(1) }),
        threshold: THRESHOLDS.dlqMessages,
        what: `A message is on the ${q} dead-letter queue: a delivery exhausted its attempts or a message failed ${def.maxReceiveCount} times.`,
        action: 'read the messages (kind, delivery, partner, environment), fix the cause, then replay or redrive them and purge the queue.',
        runbook: 'dlq',
      });
      const maxAge = def.visibilityTimeoutSeconds * def.maxReceiveCount + THRESHOLDS.queueAgeSlackSeconds;
      alarm(`${q}OldestMessageAge`, {
        metric: props.queues[q]!.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: Duration.minutes(1) }),
        threshold: maxAge,
        what: `The oldest message of the ${q} queue is ${maxAge} s old, longer than its whole retry budget: its consumer is not keeping up or not running.`,
        action: `check the ${q} consumer's errors, throttles and duration; look for a poison message or a broken deploy.`,
        runbook: 'queueAge',
      });
    }

    // The webhook dead-letter rate, live deliveries only (sandbox receivers are partners' test endpoints).
    const closed = serviceMetric('WebhookDeliveriesClosed', { environment: 'live' }, 'Sum', Duration.hours(1));
    const dead = serviceMetric('WebhookDeadLetters', { environment: 'live' }, 'Sum', Duration.hours(1));
    alarm('WebhookDeadLetterRate', {
      metric: new MathExpression({
        expression: `IF(closed >= ${THRESHOLDS.deadLetterMinClosed}, 100 * dead / closed, 0)`,
        usingMetrics: { closed, dead },
        period: Duration.hours(1),
        label: 'Live dead-letter rate (%)',
      }),
      threshold: THRESHOLDS.deadLetterRatePercent,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      what: `Over ${THRESHOLDS.deadLetterRatePercent}% of the live webhook deliveries closed in the last hour were dead-lettered: more than one partner's receiver failing, or our sending is broken.`,
      action: 'group the dead letters by partner and error; if many partners fail alike, check signing, DNS and egress; then replay.',
      runbook: 'deadLetterRate',
    });

    // Per route: the share of 5xx answers.
    for (const r of routes) {
      const errors = serviceMetric('Error5xx', { route: routeName(r) }, 'Sum');
      const requests = serviceMetric('Requests', { route: routeName(r) }, 'Sum');
      alarm(`${r.id}5xxRate`, {
        metric: new MathExpression({
          expression: `IF(errors >= ${THRESHOLDS.route5xxMinErrors}, 100 * errors / requests, 0)`,
          usingMetrics: { errors, requests },
          period: FIVE_MINUTES,
          label: `${routeName(r)} 5xx (%)`,
        }),
        threshold: THRESHOLDS.route5xxPercent,
        comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
        what: `${routeName(r)} answered 5xx to over ${THRESHOLDS.route5xxPercent}% of its requests (${THRESHOLDS.route5xxMinErrors} or more) in 5 minutes.`,
        action: `find the requests' 'unhandled error' log lines (route = "${routeName(r)}"), check DynamoDB alarms and the last deploy; roll back if it started with one.`,
        runbook: 'route5xx',
      });
    }

    // The API as the banks see it: also the answers no handler could count (timeouts, crashes, throttles).
    const apiErrors = props.api.metricServerError({ statistic: 'Sum', period: FIVE_MINUTES });
    const apiCount = props.api.metricCount({ statistic: 'Sum', period: FIVE_MINUTES });
    alarm('Api5xxRate', {
      metric: new MathExpression({
        expression: `IF(errors >= ${THRESHOLDS.route5xxMinErrors}, 100 * errors / requests, 0)`,
        usingMetrics: { errors: apiErrors, requests: apiCount },
        period: FIVE_MINUTES,
        label: 'API 5xx (%)',
      }),
      threshold: THRESHOLDS.route5xxPercent,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      what: `API Gateway answered 5xx to over ${THRESHOLDS.route5xxPercent}% of all requests in 5 minutes, timeouts and crashes of functions included.`,
      action: 'compare with the per-route 5xx and Lambda errors alarms: if only this one fires, functions time out or crash (see their Errors and Duration).',
      runbook: 'api5xx',
    });

    // Unhandled failures of every function but the jobs' (they have their own alarm).
    const fns: [string, IFunction][] = [
      ...Object.entries(props.routeFunctions),
      ['Fallback', props.fallback],
      ...Object.entries(props.consumers).map(([q, f]): [string, IFunction] => [`${q}Consumer`, f]),
      ...Object.entries(props.serviceInvoked ?? {}),
    ];
    for (const [name, fn] of fns) {
      alarm(`${name}LambdaErrors`, {
        metric: fn.metricErrors({ statistic: 'Sum', period: FIVE_MINUTES }),
        threshold: THRESHOLDS.lambdaErrors,
        what: `The function ${name} failed ${THRESHOLDS.lambdaErrors} times or more in 5 minutes outside its error handling (timeout, crash, out of memory).`,
        action: `read its log group's REPORT and error lines (Status: timeout, Runtime.*), check its Duration against its timeout and the DynamoDB alarms.`,
        runbook: 'lambdaErrors',
      });
    }
    alarm('LambdaThrottles', {
      metric: new Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', statistic: 'Sum', period: FIVE_MINUTES }),
      threshold: THRESHOLDS.lambdaThrottles,
      what: 'Lambda throttled invocations in this account and region: requests were refused (API Gateway 5xx) or delayed.',
      action: 'check ConcurrentExecutions against the account limit, find the function that spikes, raise the limit or cap the culprit.',
      runbook: 'throttles',
    });

    // DynamoDB, per table: throttled requests and internal errors, summed over the operations used.
    for (const [name, table] of Object.entries(props.tables)) {
      alarm(`${name}TableThrottled`, {
        metric: tableSum(name, table, 'ThrottledRequests'),
        threshold: THRESHOLDS.dynamoThrottled,
        what: `DynamoDB throttled ${THRESHOLDS.dynamoThrottled} or more requests on the ${name} table in 5 minutes (a hot key or an account limit).`,
        action:
          'find the hot key in CloudWatch Contributor Insights or the logs (one partner, one slot), check the table limits; the SDK retries single throttles.',
        runbook: 'dynamoThrottles',
      });
      alarm(`${name}TableSystemErrors`, {
        metric: tableSum(name, table, 'SystemErrors'),
        threshold: THRESHOLDS.dynamoSystemErrors,
        what: `DynamoDB answered ${THRESHOLDS.dynamoSystemErrors} or more internal errors on the ${name} table in 5 minutes.`,
        action: 'check the AWS Health Dashboard for DynamoDB in this region; requests are retried; tell the banks if 5xx follow.',
        runbook: 'dynamoErrors',
      });
    }

    // E-mail: SES refused a send (the sender not verified, the sandbox, sending paused, the sending rate), retried or not.
    alarm('MailFailures', {
      metric: serviceMetric('MailFailures', {}, 'Sum'),
      threshold: THRESHOLDS.mailFailures,
      what: "SES refused an e-mail (a booking confirmation or cancellation, the operators' copy, a webhook warning) or did not answer in time; it waits on the mail queue to be sent again.",
      action:
        "read the 'e-mail not sent' log lines and MailFailures by reason; fix the SES identity, the sandbox or the sending quota; then redrive the mail DLQ.",
      runbook: 'mailFailed',
    });

    // SES's reputation, before SES reviews the account. SES computes the rates over the account's recent mail and
    // publishes none while nothing is sent, which leaves them where they were: the alarm keeps its state (ignore).
    const reputationAction =
      'read the suppression list, find the partners behind the message ids, stop what sends the bad e-mail; never take addresses off the suppression list to send again.';
    alarm('SesBounceRate', {
      metric: sesReputation('Reputation.BounceRate'),
      threshold: THRESHOLDS.sesBounceRate,
      missing: TreatMissingData.IGNORE,
      what: `SES's bounce rate for this account and region reached ${percent(THRESHOLDS.sesBounceRate)}: e-mail goes to addresses that do not exist. SES reviews the account at 5 % and may pause its sending at 10 %.`,
      action: reputationAction,
      runbook: 'sesReputation',
    });
    alarm('SesComplaintRate', {
      metric: sesReputation('Reputation.ComplaintRate'),
      threshold: THRESHOLDS.sesComplaintRate,
      missing: TreatMissingData.IGNORE,
      what: `SES's complaint rate for this account and region reached ${percent(THRESHOLDS.sesComplaintRate)}: recipients mark our e-mail as spam. SES reviews the account at 0.1 % and may pause its sending at 0.5 %.`,
      action: reputationAction,
      runbook: 'sesReputation',
    });
    // A runtime whose time-zone data gives Morocco other offsets than the service's bundled rules (shared/kernel/tz-check.ts).
    alarm('TzDataMismatch', {
      metric: serviceMetric('TzDataMismatch', {}, 'Maximum', Duration.hours(1)),
      threshold: THRESHOLDS.tzDataMismatch,
      what: "A function's runtime has time-zone data that gives Morocco other UTC offsets than the IANA rules the service bundles. The service's dates do not change (they come from the bundled rules), but one of the two sources is out of date.",
      action:
        "read the warning 'the runtime's time-zone data differs' (runtime_tz, rules, first_difference); if IANA published a change the rules lack, bump moment-timezone and deploy; if the runtime is behind, wait for Lambda's update or pin it.",
      runbook: 'tzData',
    });
    // Asynchronous invocations: an event Lambda gave up on, on the function's on-failure queue, or lost because
    // Lambda could not put it there (DestinationDeliveryFailures: a missing grant, a record too large).
    for (const [key, { fn, def, onFailure }] of Object.entries(props.asyncFunctions ?? {})) {
      alarm(`${key}AsyncFailures`, {
        metric: new MathExpression({
          expression: 'MAX([FILL(visible, 0), FILL(lost, 0)])',
          usingMetrics: {
            visible: onFailure.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: Duration.minutes(1) }),
            lost: fn.metric('DestinationDeliveryFailures', { statistic: 'Sum', period: Duration.minutes(1) }),
          },
          period: Duration.minutes(1),
          label: `${key} failed asynchronous events`,
        }),
        threshold: THRESHOLDS.asyncFailures,
        what: `An asynchronous invocation of ${key} (${def.entry}) failed its 3 attempts or outlived its maximum age (${def.maxEventAgeSeconds / 60} min): its invocation record (the event, the error) is on its on-failure queue, or was lost on the way.`,
        action: "read the records (requestContext.condition, responsePayload's error, requestPayload), fix the cause, re-drive each event, then delete it.",
        runbook: 'asyncFailed',
      });
    }

    // Every scheduled job: a failed run, and no successful run since its last scheduled time.
    for (const job of jobs) {
      const fn = props.jobFunctions[job.id]!;
      alarm(`${job.id}JobFailed`, {
        metric: new MathExpression({
          expression: 'MAX([FILL(failures, 0), FILL(errors, 0)])',
          usingMetrics: {
            failures: serviceMetric('JobFailures', { job: job.id }, 'Sum', Duration.minutes(15)),
            errors: fn.metricErrors({ statistic: 'Sum', period: Duration.minutes(15) }),
          },
          period: Duration.minutes(15),
          label: `${job.id} failed runs`,
        }),
        threshold: THRESHOLDS.jobFailures,
        what: `The scheduled job ${job.id} failed ${THRESHOLDS.jobFailures} times or more in 15 minutes (the run and its retry; timeouts included).`,
        action: `read its 'job failed' log line (job = "${job.id}"), fix the cause, then run it again (see the runbook).`,
        runbook: 'jobFailed',
      });
      const watchdog = job.id === 'jobWatchdog';
      alarm(`${job.id}JobOverdue`, {
        metric: serviceMetric('JobOverdue', { job: job.id }, 'Maximum', Duration.minutes(15)),
        threshold: 1,
        // The watchdog's own figure stops when the watchdog stops: its absence is the alarm.
        evaluationPeriods: watchdog ? 2 : 1,
        missing: watchdog ? TreatMissingData.BREACHING : TreatMissingData.NOT_BREACHING,
        what: watchdog
          ? 'The job watchdog has not reported for 30 minutes: no job is being checked.'
          : `The scheduled job ${job.id} (${job.schedule}) has no successful run since its last scheduled time plus ${job.graceMinutes ?? 60} minutes.`,
        action: watchdog
          ? 'check the jobWatchdog rule is enabled and its function runs (its errors, its log group).'
          : `run 'jobs:status', check its rule is enabled and its last error, then run it again (see the runbook).`,
        runbook: 'jobOverdue',
      });
    }

    this.dashboard = this.buildDashboard(props, routes, queueDefs, jobs);
    new CfnOutput(stack, 'AlarmTopicArn', { value: this.topic.topicArn });
    new CfnOutput(stack, 'DashboardUrl', {
      value: `https://console.aws.amazon.com/cloudwatch/home?region=${stack.region}#dashboards:name=${this.dashboard.dashboardName}`,
    });
  }

  private buildDashboard(props: MonitoringProps, routes: RouteDef[], queueDefs: Record<string, QueueDef>, jobs: JobDef[]): Dashboard {
    const d = new Dashboard(this, 'Dashboard', {
      dashboardName: `${(Stack.of(this).nestedStackParent ?? Stack.of(this)).stackName}-operations`,
      defaultInterval: Duration.hours(3),
    });
    const labelled = (m: IMetric) =>
      m instanceof Metric && m.namespace === METRICS_NAMESPACE && !m.label
        ? m.with({
            label: [
              m.metricName,
              ...Object.entries(m.dimensions ?? {})
                .filter(([k]) => k !== 'service')
                .map(([, v]) => String(v)),
              m.statistic,
            ].join(' '),
          })
        : m;
    const graph = (title: string, left: IMetric[], width = 6, right: IMetric[] = []) =>
      new GraphWidget({ title, left: left.map(labelled), right: right.map(labelled), width, height: 6 });
    const p99 = (name: MetricName, dims: Partial<Record<Dimension, string>>) => serviceMetric(name, dims, 'p99');

    d.addWidgets(
      new TextWidget({
        markdown: `# Partner travel service\nGolden signals of the API, then per route, webhooks, jobs and storage. Runbook: ${RUNBOOK_PAGE}.`,
        width: 24,
        height: 2,
      }),
    );
    d.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 6 }));
    d.addWidgets(
      graph('Requests (all routes)', [serviceMetric('Requests', {}, 'Sum'), props.api.metricCount({ statistic: 'Sum', label: 'API Gateway count' })]),
      graph('Errors (all routes)', [
        serviceMetric('Error5xx', {}, 'Sum'),
        serviceMetric('Error4xx', {}, 'Sum'),
        props.api.metricServerError({ statistic: 'Sum', label: 'API Gateway 5xx' }),
      ]),
      graph('Latency (all routes)', [
        serviceMetric('Latency', {}, 'p50'),
        serviceMetric('Latency', {}, 'p99'),
        props.api.metricLatency({ statistic: 'p99', label: 'API Gateway p99' }),
      ]),
      graph('Saturation', [
        new Metric({ namespace: 'AWS/Lambda', metricName: 'ConcurrentExecutions', statistic: 'Maximum' }),
        new Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', statistic: 'Sum' }),
      ]),
    );
    d.addWidgets(
      graph('Refusals', [serviceMetric('AuthFailures', {}, 'Sum'), serviceMetric('RateLimitRefusals', {}, 'Sum')], 8),
      graph(
        'Business (live)',
        (
          ['QuotesCreated', 'BookingsConfirmed', 'BookingsRefused', 'BookingsCancelled', 'BookingsCompleted', 'SettlementsIssued', 'SettlementsPaid'] as const
        ).map((n) => serviceMetric(n, { environment: 'live' }, 'Sum')),
        8,
      ),
      graph(
        'Reviews and files (live)',
        (['ReviewsCreated', 'ReviewsModerated', 'FilesRejected'] as const).map((n) => serviceMetric(n, { environment: 'live' }, 'Sum')),
        8,
      ),
    );
    d.addWidgets(
      graph('E-mail: sent and refused by SES', [serviceMetric('MailsSent', {}, 'Sum'), serviceMetric('MailFailures', {}, 'Sum')], 8),
      graph(
        'E-mail: the mail queue (retries) and its DLQ',
        props.queues.mail && props.dlqs.mail
          ? [
              props.queues.mail.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', label: 'mail visible' }),
              props.dlqs.mail.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', label: 'mail DLQ' }),
            ]
          : [],
        8,
      ),
      graph(
        'E-mail: SES reputation (fraction of 1)',
        [sesReputation('Reputation.BounceRate', 'bounce rate'), sesReputation('Reputation.ComplaintRate', 'complaint rate')],
        8,
      ),
    );

    // Golden signals per route, one row per feature (tag of the route table).
    const byTag = new Map<string, RouteDef[]>();
    for (const r of routes) byTag.set(r.tag, [...(byTag.get(r.tag) ?? []), r]);
    for (const [tag, rs] of byTag) {
      d.addWidgets(
        graph(
          `${tag}: requests`,
          rs.map((r) => serviceMetric('Requests', { route: routeName(r) }, 'Sum')),
        ),
        graph(
          `${tag}: 5xx`,
          rs.map((r) => serviceMetric('Error5xx', { route: routeName(r) }, 'Sum')),
        ),
        graph(
          `${tag}: latency p99`,
          rs.map((r) => p99('Latency', { route: routeName(r) })),
        ),
        graph(
          `${tag}: Lambda errors and throttles`,
          rs.flatMap((r) => {
            const fn = props.routeFunctions[r.id];
            return fn
              ? [fn.metricErrors({ statistic: 'Sum', label: `${r.id} errors` }), fn.metricThrottles({ statistic: 'Sum', label: `${r.id} throttles` })]
              : [];
          }),
        ),
      );
    }

    // Webhooks and queues.
    const envs = ['live', 'test'] as const;
    d.addWidgets(
      graph(
        'Webhook attempts and failures',
        envs.flatMap((e) => [serviceMetric('WebhookAttempts', { environment: e }, 'Sum'), serviceMetric('WebhookAttemptFailures', { environment: e }, 'Sum')]),
      ),
      graph(
        'Webhook deliveries closed and dead letters',
        envs.flatMap((e) => [
          serviceMetric('WebhookDeliveriesClosed', { environment: e }, 'Sum'),
          serviceMetric('WebhookDeadLetters', { environment: e }, 'Sum'),
        ]),
      ),
      graph(
        'Webhook dispatch delay',
        envs.flatMap((e) => [serviceMetric('WebhookDispatchDelay', { environment: e }, 'p50'), p99('WebhookDispatchDelay', { environment: e })]),
      ),
      graph(
        'Queues: depth, oldest message, DLQ',
        Object.keys(queueDefs).flatMap((q) => [
          props.queues[q]!.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', label: `${q} visible` }),
          props.dlqs[q]!.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', label: `${q} DLQ` }),
        ]),
        6,
        Object.keys(queueDefs).map((q) => props.queues[q]!.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', label: `${q} oldest (s)` })),
      ),
    );

    // Jobs.
    d.addWidgets(
      graph(
        'Job runs and failures',
        jobs.flatMap((j) => [serviceMetric('JobRuns', { job: j.id }, 'Sum'), serviceMetric('JobFailures', { job: j.id }, 'Sum')]),
        8,
      ),
      graph(
        'Job duration (max)',
        jobs.map((j) => serviceMetric('JobDuration', { job: j.id }, 'Maximum')),
        8,
      ),
      graph(
        'Jobs overdue',
        jobs.map((j) => serviceMetric('JobOverdue', { job: j.id }, 'Maximum', Duration.minutes(15))),
        8,
      ),
    );

    // Asynchronous invocations Lambda gave up on, per function.
    const asyncFns = Object.entries(props.asyncFunctions ?? {});
    if (asyncFns.length) {
      d.addWidgets(
        graph(
          'Asynchronous invocations: records on the on-failure queues',
          asyncFns.map(([key, t]) => t.onFailure.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', label: key })),
          24,
        ),
      );
    }

    // Storage.
    d.addWidgets(
      ...Object.entries(props.tables).map(([name, t]) =>
        graph(`DynamoDB ${name}: capacity`, [
          t.metricConsumedReadCapacityUnits({ statistic: 'Sum' }),
          t.metricConsumedWriteCapacityUnits({ statistic: 'Sum' }),
        ]),
      ),
      ...Object.entries(props.tables).map(([name, t]) =>
        graph(`DynamoDB ${name}: throttles and errors`, [tableSum(name, t, 'ThrottledRequests'), tableSum(name, t, 'SystemErrors')]),
      ),
    );
    return d;
  }
}
