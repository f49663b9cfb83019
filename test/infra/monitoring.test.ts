import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { THRESHOLDS } from '../../infra/constructs/monitoring';
import { OncallError } from '../../infra/oncall';
import { RUNBOOK, RUNBOOK_PAGE, type RunbookSection, runbookAnchor } from '../../infra/runbook';
import { ASYNC_INVOCATIONS } from '../../shared/async-invocations';
import { TABLES } from '../../shared/db/tables';
import { SERVICE_NAME } from '../../shared/kernel/logger';
import { METRICS_NAMESPACE } from '../../shared/kernel/metrics';
import { JOBS, QUEUES } from '../../shared/queues';
import { ROUTE_LIST } from '../../shared/routes';
import { actionsOf, isServiceFunction, type Statement, synthService } from './synth';

const RUNBOOKS = readFileSync(join(import.meta.dirname, '..', '..', RUNBOOK_PAGE), 'utf8');

interface AlarmProps {
  AlarmName: string;
  AlarmDescription: string;
  Threshold: number;
  ComparisonOperator: string;
  EvaluationPeriods: number;
  DatapointsToAlarm: number;
  TreatMissingData: string;
  AlarmActions: unknown[];
  OKActions: unknown[];
  MetricName?: string;
  Namespace?: string;
  Statistic?: string;
  Period?: number;
  Dimensions?: { Name: string; Value: unknown }[];
  Metrics?: {
    Id: string;
    Expression?: string;
    MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions?: { Name: string; Value: unknown }[] } };
  }[];
}

function synth(context: Record<string, string> = {}) {
  const s = synthService(context);
  if (s.synthError) throw s.synthError;
  // The alarms live in the Operations nested stack; their names come from the service stack.
  return { template: s.operations, service: s, stackName: s.stack.stackName };
}

let template: Template;
/** Every stack (the route functions are in nested stacks, their log groups in the service stack); `template` is the Operations nested stack (alarms, topic, dashboard). */
let service: ReturnType<typeof synthService>;
let stackName: string;
let alarms: Map<string, AlarmProps>;
let topicId: string;

beforeAll(() => {
  ({ template, service, stackName } = synth());
  alarms = new Map(
    Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((r) => {
      const p = (r as { Properties: AlarmProps }).Properties;
      return [p.AlarmName.slice(stackName.length + 1), p];
    }),
  );
  topicId = Object.keys(template.findResources('AWS::SNS::Topic'))[0]!;
});

const alarm = (id: string) => {
  const a = alarms.get(id);
  if (!a) throw new Error(`no alarm ${id}; alarms: ${[...alarms.keys()].join(', ')}`);
  return a;
};
const dims = (d: { Name: string; Value: unknown }[] = []) => Object.fromEntries(d.map((x) => [x.Name, x.Value]));
const mathMetrics = (a: AlarmProps) => (a.Metrics ?? []).filter((m) => m.MetricStat).map((m) => ({ id: m.Id, ...m.MetricStat!.Metric }));
const expression = (a: AlarmProps) => a.Metrics?.find((m) => m.Expression)?.Expression;

describe('on-call topic', () => {
  it('is an SNS topic encrypted with a rotated KMS key that CloudWatch may use, SSL only', () => {
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey*'] })]),
      },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
  });

  it('subscribes the on-call e-mail given for the deployment', () => {
    const { template: t } = synth({ oncallEmail: 'oncall@partner-travel.example' });
    t.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@partner-travel.example' });
  });

  it('npm run deploy (-c requireOncall=true) refuses a stack whose alarms would page nobody, or an address nobody reads', () => {
    expect(() => synthService({ requireOncall: 'true' })).toThrow(OncallError);
    expect(() => synthService({ requireOncall: 'true' })).toThrow(/No one would be paged: .* -c oncallEmail=ADDRESS .* -c oncallTopicArn=ARN/);
    expect(() => synthService({ requireOncall: 'true', oncallEmail: 'oncall@partner-travel.example' })).toThrow(/not an address anyone receives mail at/);
    expect(() => synthService({ requireOncall: 'true', oncallTopicArn: 'pagerduty' })).toThrow(/not an SNS topic ARN/);
  });

  it("notifies an existing topic given instead (a paging tool's), which must be in the alarms' region", () => {
    const paging = 'arn:aws:sns:eu-west-3:111122223333:pager';
    const s = synthService({ requireOncall: 'true', oncallTopicArn: paging }, { account: '111122223333', region: 'eu-west-3' });
    expect(s.synthError).toBeUndefined();
    const alarms = Object.values(s.operations.findResources('AWS::CloudWatch::Alarm')) as { Properties: { AlarmActions: unknown[]; OKActions: unknown[] } }[];
    expect(alarms.length).toBeGreaterThan(0);
    for (const a of alarms) {
      expect(a.Properties.AlarmActions).toEqual([expect.objectContaining({ Ref: expect.any(String) }), paging]);
      expect(a.Properties.OKActions).toEqual([expect.objectContaining({ Ref: expect.any(String) }), paging]);
    }
    expect(() => synthService({ oncallTopicArn: 'arn:aws:sns:eu-west-1:111122223333:pager' }, { account: '111122223333', region: 'eu-west-3' })).toThrow(
      /the topic is in eu-west-1; the alarms, in eu-west-3, can notify a topic of eu-west-3 only/,
    );
  });
});

describe('alarms', () => {
  it('every alarm notifies the on-call topic when it fires and when it clears, and says what to do and where the runbook is', () => {
    expect(alarms.size).toBeGreaterThan(0);
    const headings = new Set([...RUNBOOKS.matchAll(/^### Runbook: (.+)$/gm)].map((m) => m[1]));
    for (const [id, a] of alarms) {
      expect(a.AlarmActions, id).toEqual([{ Ref: topicId }]);
      expect(a.OKActions, id).toEqual([{ Ref: topicId }]);
      expect(a.AlarmDescription, id).toMatch(/ Do: .+ Runbook: docs\/operations\/alarms-and-runbooks\.md#runbook-[a-z0-9-]+ \(".+"\)\.$/);
      expect(a.AlarmDescription.length, id).toBeLessThanOrEqual(1024);
      const anchor = /alarms-and-runbooks\.md#(runbook-[a-z0-9-]+)/.exec(a.AlarmDescription)![1]!;
      const section = (Object.keys(RUNBOOK) as RunbookSection[]).find((s) => runbookAnchor(s) === anchor);
      expect(section, `${id}: ${anchor}`).toBeDefined();
      expect(headings.has(RUNBOOK[section!]), `${RUNBOOK_PAGE} heading "### Runbook: ${RUNBOOK[section!]}"`).toBe(true);
    }
  });

  it('the runbook page has a section for every kind of alarm, and no section that no alarm points to', () => {
    const headings = [...RUNBOOKS.matchAll(/^### Runbook: (.+)$/gm)].map((m) => m[1]);
    const used = new Set([...alarms.values()].map((a) => /alarms-and-runbooks\.md#(runbook-[a-z0-9-]+)/.exec(a.AlarmDescription)?.[1]));
    expect(headings.sort()).toEqual(Object.values(RUNBOOK).sort());
    for (const section of Object.keys(RUNBOOK) as RunbookSection[]) expect(used.has(runbookAnchor(section)), section).toBe(true);
  });

  it('has exactly the alarms generated from the queues, routes, functions, tables, jobs and asynchronous invocations', () => {
    const queues = Object.keys(QUEUES).length;
    // Routes, the $default fallback, one consumer per queue, the request log's consumer and the invitation trigger.
    const functions = ROUTE_LIST.length + 1 + queues + 2;
    // ... + 1: MailFailures; + 2: SES's bounce and complaint rates; + 1: TzDataMismatch; one AsyncFailures per asynchronously invoked function.
    const expected =
      2 * queues + 1 + ROUTE_LIST.length + 1 + functions + 1 + 2 * Object.keys(TABLES).length + 2 * JOBS.length + 1 + 2 + 1 + ASYNC_INVOCATIONS.length;
    expect(alarms.size).toBe(expected);
  });

  it('any message on any DLQ (1 or more visible, 1-minute maximum)', () => {
    for (const q of Object.keys(QUEUES)) {
      const a = alarm(`${q}DlqNotEmpty`);
      expect(a).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Statistic: 'Maximum',
        Period: 60,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      expect(JSON.stringify(dims(a.Dimensions).QueueName)).toMatch(new RegExp(`${q}Dlq`));
    }
  });

  it('the age of the oldest message of every queue, past its whole retry budget plus two minutes', () => {
    for (const [q, def] of Object.entries(QUEUES)) {
      const a = alarm(`${q}OldestMessageAge`);
      expect(a).toMatchObject({ Namespace: 'AWS/SQS', MetricName: 'ApproximateAgeOfOldestMessage', Statistic: 'Maximum', Period: 60 });
      expect(a.Threshold).toBe(def.visibilityTimeoutSeconds * def.maxReceiveCount + 120);
      expect(JSON.stringify(dims(a.Dimensions).QueueName)).toMatch(new RegExp(`${q}Queue`));
    }
  });

  it('the live webhook dead-letter rate over 5% of at least 20 deliveries closed in an hour', () => {
    const a = alarm('WebhookDeadLetterRate');
    expect(a).toMatchObject({ Threshold: THRESHOLDS.deadLetterRatePercent, ComparisonOperator: 'GreaterThanThreshold' });
    expect(expression(a)).toBe('IF(closed >= 20, 100 * dead / closed, 0)');
    const m = mathMetrics(a);
    expect(m.map((x) => x.MetricName).sort()).toEqual(['WebhookDeadLetters', 'WebhookDeliveriesClosed']);
    for (const x of m) expect(dims(x.Dimensions)).toEqual({ service: SERVICE_NAME, environment: 'live' });
  });

  it('the 5xx rate of every route of the route table, over 5% with at least 3 errors in 5 minutes', () => {
    for (const r of ROUTE_LIST) {
      const a = alarm(`${r.id}5xxRate`);
      expect(a, r.id).toMatchObject({ Threshold: 5, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 1 });
      expect(expression(a)).toBe('IF(errors >= 3, 100 * errors / requests, 0)');
      const m = mathMetrics(a);
      expect(m.map((x) => [x.id, x.MetricName, x.Namespace])).toEqual([
        ['errors', 'Error5xx', METRICS_NAMESPACE],
        ['requests', 'Requests', METRICS_NAMESPACE],
      ]);
      for (const x of m) expect(dims(x.Dimensions)).toEqual({ service: SERVICE_NAME, route: `${r.method} ${r.path}` });
    }
    expect(expression(alarm('Api5xxRate'))).toBe('IF(errors >= 3, 100 * errors / requests, 0)');
    expect(mathMetrics(alarm('Api5xxRate')).map((x) => x.Namespace)).toEqual(['AWS/ApiGateway', 'AWS/ApiGateway']);
  });

  it('Lambda errors of every route, fallback and consumer function (3 in 5 minutes), and throttles in the account (1)', () => {
    for (const name of [...ROUTE_LIST.map((r) => r.id), 'Fallback', ...Object.keys(QUEUES).map((q) => `${q}Consumer`)]) {
      const a = alarm(`${name}LambdaErrors`);
      expect(a, name).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Errors', Statistic: 'Sum', Period: 300, Threshold: 3 });
      expect(Object.keys(dims(a.Dimensions))).toEqual(['FunctionName']);
    }
    const t = alarm('LambdaThrottles');
    expect(t).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Throttles', Statistic: 'Sum', Period: 300, Threshold: 1 });
    expect(t.Dimensions).toBeUndefined();
  });

  /** An alarm on one of the service's own figures, service-wide: its statistic, period, and runbook section. */
  const serviceWide = (id: string, statistic: string, period: number, runbook: string) => {
    const a = alarm(id);
    expect(a).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: id,
      Statistic: statistic,
      Period: period,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
    expect(dims(a.Dimensions)).toEqual({ service: SERVICE_NAME });
    expect(a.AlarmDescription).toContain(`#${runbook}`);
  };

  it('any e-mail SES refused in 5 minutes (the service-wide MailFailures), whatever its reason', () => {
    serviceWide('MailFailures', 'Sum', 300, 'runbook-ses-refuses-e-mail');
  });

  it("a runtime whose time-zone data differs from the bundled rules (TzDataMismatch, the hour's maximum)", () => {
    serviceWide('TzDataMismatch', 'Maximum', 3600, 'runbook-the-runtimes-time-zone-data-differs');
  });

  it("SES's account reputation well before SES reviews the account: a 2 % bounce rate, a 0.05 % complaint rate (fractions of 1), a silence keeping the state", () => {
    for (const [id, metric, threshold] of [
      ['SesBounceRate', 'Reputation.BounceRate', 0.02],
      ['SesComplaintRate', 'Reputation.ComplaintRate', 0.0005],
    ] as const) {
      const a = alarm(id);
      // SES reviews at 5 % and 0.1 %: the thresholds stay under half of those.
      expect(a, id).toMatchObject({
        Namespace: 'AWS/SES',
        MetricName: metric,
        Statistic: 'Maximum',
        Period: 900,
        Threshold: threshold,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'ignore',
      });
      // Account-wide: the metric without a dimension (a configuration set's would have one).
      expect(a.Dimensions, id).toBeUndefined();
      expect(a.AlarmDescription, id).toContain('#runbook-the-ses-bounce-or-complaint-rate-is-high');
    }
    expect(alarm('SesBounceRate').AlarmDescription).toContain('reached 2 %');
    expect(alarm('SesComplaintRate').AlarmDescription).toContain('reached 0.05 %');
  });

  it('DynamoDB throttled requests (10) and system errors (5) of every table in 5 minutes, summed over the operations', () => {
    for (const name of Object.keys(TABLES)) {
      for (const [id, metric, threshold] of [
        [`${name}TableThrottled`, 'ThrottledRequests', 10],
        [`${name}TableSystemErrors`, 'SystemErrors', 5],
      ] as const) {
        const a = alarm(id);
        expect(a.Threshold).toBe(threshold);
        const m = mathMetrics(a);
        expect(m.length).toBeGreaterThanOrEqual(8);
        expect(m.length).toBeLessThanOrEqual(10);
        for (const x of m) expect(x).toMatchObject({ Namespace: 'AWS/DynamoDB', MetricName: metric });
        expect(new Set(m.map((x) => dims(x.Dimensions).Operation))).toContain('TransactWriteItems');
        expect(expression(a)).toMatch(/^FILL\(\w+, 0\)( \+ FILL\(\w+, 0\))+$/);
      }
    }
  });

  it('every scheduled job: failed (2 in 15 minutes, EMF or Lambda errors) and did not run (JobOverdue from the watchdog)', () => {
    for (const job of JOBS) {
      const failed = alarm(`${job.id}JobFailed`);
      expect(failed).toMatchObject({ Threshold: 2, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
      expect(expression(failed)).toBe('MAX([FILL(failures, 0), FILL(errors, 0)])');
      expect(mathMetrics(failed).map((x) => `${x.Namespace} ${x.MetricName}`)).toEqual([`${METRICS_NAMESPACE} JobFailures`, 'AWS/Lambda Errors']);
      expect(dims(mathMetrics(failed)[0]!.Dimensions)).toEqual({ service: SERVICE_NAME, job: job.id });
      const overdue = alarm(`${job.id}JobOverdue`);
      expect(overdue).toMatchObject({ Namespace: METRICS_NAMESPACE, MetricName: 'JobOverdue', Statistic: 'Maximum', Period: 900, Threshold: 1 });
      expect(dims(overdue.Dimensions)).toEqual({ service: SERVICE_NAME, job: job.id });
      // The watchdog's silence is its own alarm; the others wait for a figure.
      expect(overdue.TreatMissingData).toBe(job.id === 'jobWatchdog' ? 'breaching' : 'notBreaching');
    }
  });
});

describe('dashboard', () => {
  it('shows the alarms, the golden signals of every route, and the webhook, queue, job and table panels', () => {
    const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify((dashboards[0] as { Properties: { DashboardBody: unknown } }).Properties.DashboardBody);
    for (const r of ROUTE_LIST) expect(body, r.id).toContain(`${r.method} ${r.path}`);
    for (const j of JOBS) expect(body, j.id).toContain(j.id);
    for (const title of [
      'Alarms',
      'Requests (all routes)',
      'Latency (all routes)',
      'Webhook dispatch delay',
      'Webhook deliveries closed and dead letters',
      'Queues: depth, oldest message, DLQ',
      'Jobs overdue',
      'Refusals',
      'E-mail: SES reputation (fraction of 1)',
    ]) {
      expect(body, title).toContain(title);
    }
    for (const m of [
      'Latency',
      'Error5xx',
      'WebhookDeadLetters',
      'WebhookDispatchDelay',
      'JobFailures',
      'AuthFailures',
      'RateLimitRefusals',
      'BookingsConfirmed',
    ])
      expect(body, m).toContain(m);
  });
});

describe('functions', () => {
  // Ours: CDK's own deploy-time handlers (bucket notifications, deployments, custom resources) are not the service's functions.
  const ours = (s: ReturnType<typeof synthService>) =>
    s
      .everywhere('AWS::Lambda::Function')
      .filter(([, , f]) => isServiceFunction(f))
      .map(([, , f]) => f.Properties);
  const serviceLogGroups = (s: ReturnType<typeof synthService>) => s.everywhere('AWS::Logs::LogGroup').map(([, , g]) => g.Properties);
  const fns = () => ours(service);

  it('trace actively with X-Ray, never capturing responses, and may write their segments', () => {
    for (const p of fns()) {
      expect(p.TracingConfig).toEqual({ Mode: 'Active' });
      expect(p.Environment.Variables).toMatchObject({ POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false', POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE });
    }
    // The actions in any order: a minimized policy sorts them.
    const xray = Object.values(service.root.findResources('AWS::IAM::Policy'))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[])
      .filter((st) => st.Resource === '*' && [...actionsOf(st)].sort().join() === 'xray:PutTelemetryRecords,xray:PutTraceSegments');
    expect(xray.length).toBeGreaterThan(0);
  });

  it('log at the deployment level, kept for the deployment retention (production by default: INFO, 400 days)', () => {
    for (const p of fns()) expect(p.Environment.Variables).toMatchObject({ POWERTOOLS_LOG_LEVEL: 'INFO', DEPLOYMENT_ENV: 'production' });
    const groups = serviceLogGroups(service);
    // One per function, the API access logs, and one per deploy-time handler of CDK's (the console's files, the API's CORS).
    const cdkHandlers = service.everywhere('AWS::Lambda::Function').filter(([, , f]) => !isServiceFunction(f) && f.Properties.LoggingConfig);
    expect(groups.length).toBe(fns().length + 1 + cdkHandlers.length);
    for (const g of groups) expect(g.RetentionInDays).toBe(400);

    const dev = synth({ deployment: 'dev' }).service;
    for (const p of ours(dev)) {
      expect(p.Environment.Variables).toMatchObject({
        POWERTOOLS_LOG_LEVEL: 'DEBUG',
        DEPLOYMENT_ENV: 'dev',
      });
    }
    for (const g of serviceLogGroups(dev)) expect(g.RetentionInDays).toBe(7);
    const staging = synth({ deployment: 'staging' }).service;
    for (const g of serviceLogGroups(staging)) expect(g.RetentionInDays).toBe(30);
  });
});
