import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { INVITATION_MESSAGE_TRIGGER } from '../../infra/constructs/console';
import { ASYNC_INVOCATIONS, type AsyncInvocationDef } from '../../shared/async-invocations';
import { JOBS } from '../../shared/queues';
import { type Resource, type Statement, synthService } from './synth';

/**
 * What AWS invokes asynchronously (CloudWatch Logs' subscription filters, EventBridge's rules) does not drop
 * its failures: every such function has its EventInvokeConfig, its on-failure queue (encrypted, TLS only, 14
 * days), the grant Lambda sends the record with, an alarm on that queue, and an error alarm.
 */
let s: ReturnType<typeof synthService>;
beforeAll(() => {
  s = synthService();
  if (s.synthError) throw s.synthError;
});

/** The template, logical id and resource of the service function of a handler entry. */
function functionOf(entry: string): { template: Template; id: string; fn: Resource } {
  const found = s.everywhere('AWS::Lambda::Function').find(([, , f]) => (f as Resource & { Metadata?: Record<string, unknown> }).Metadata?.Entry === entry);
  if (!found) throw new Error(`no function of ${entry}`);
  return { template: s.templates[found[0]]!, id: found[1], fn: found[2] };
}

const resources = (t: Template, type: string) => Object.entries(t.findResources(type)) as [string, Resource][];

/** The on-failure queue of a function, by its LocalName: its template's name and its logical id. */
function queueOf(def: AsyncInvocationDef): { template: string; id: string; queue: Resource } {
  const found = s
    .everywhere('AWS::SQS::Queue')
    .filter(([, , q]) => (q as Resource & { Metadata?: Record<string, unknown> }).Metadata?.LocalName === `onFailure:${def.key}`);
  expect(found, def.key).toHaveLength(1);
  const [template, id, queue] = found[0]!;
  return { template, id, queue };
}

/** Whether a value names the resource `id`: Fn::GetAtt in its own stack, from a nested stack the parameter CDK names after its construct. */
const refersTo = (v: unknown, id: string) => JSON.stringify(v).includes(id.replace(/[0-9A-F]{8}$/, ''));

/** The EventInvokeConfig of a function. */
function invokeConfigOf(entry: string): Resource['Properties'] {
  const { template, id } = functionOf(entry);
  const configs = resources(template, 'AWS::Lambda::EventInvokeConfig').filter(([, c]) => c.Properties.FunctionName.Ref === id);
  expect(configs, entry).toHaveLength(1);
  return configs[0]![1].Properties;
}

/** An alarm's properties by its name without the stack's. */
function alarm(name: string): Resource['Properties'] {
  const found = resources(s.operations, 'AWS::CloudWatch::Alarm').find(([, a]) => a.Properties.AlarmName === `${s.stack.stackName}-${name}`);
  if (!found) throw new Error(`no alarm ${name}`);
  return found[1].Properties;
}

describe('asynchronously invoked functions', () => {
  it('are the request log consumer and every job; each has an EventInvokeConfig: 2 retries, its maximum event age, its own on-failure queue', () => {
    expect(ASYNC_INVOCATIONS.map((d) => d.key).sort()).toEqual(['requestLog', ...JOBS.map((j) => j.id)].sort());
    for (const def of ASYNC_INVOCATIONS) {
      const p = invokeConfigOf(def.entry);
      expect(p, def.key).toMatchObject({ Qualifier: '$LATEST', MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: def.maxEventAgeSeconds });
      // A stateful resource: in the service stack, whichever stack the function is in.
      const { template, id, queue } = queueOf(def);
      expect(template, def.key).toBe('service');
      expect(refersTo(p.DestinationConfig.OnFailure.Destination, id), `${def.key}: ${JSON.stringify(p.DestinationConfig)}`).toBe(true);
      expect(queue.Properties).toEqual({ MessageRetentionPeriod: 14 * 86_400, SqsManagedSseEnabled: true });
      const tls = resources(s.root, 'AWS::SQS::QueuePolicy').find(([, q]) => q.Properties.Queues.some((r: { Ref: string }) => r.Ref === id));
      expect(tls?.[1].Properties.PolicyDocument.Statement, def.key).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it("may each send (Lambda sends the record with the function's role) to its own on-failure queue, and no other", () => {
    for (const def of ASYNC_INVOCATIONS) {
      const { template, fn } = functionOf(def.entry);
      const role = fn.Properties.Role['Fn::GetAtt'][0] as string;
      const statements = resources(template, 'AWS::IAM::Policy')
        .filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
      const onFailureQueues = statements.filter((st) => JSON.stringify(st.Resource).includes('OnFailure'));
      expect(onFailureQueues, def.key).toHaveLength(1);
      expect(refersTo(onFailureQueues[0]!.Resource, queueOf(def).id), def.key).toBe(true);
      expect(onFailureQueues[0]).toMatchObject({ Effect: 'Allow' });
      expect([onFailureQueues[0]!.Action].flat()).toContain('sqs:SendMessage');
    }
  });

  it('leaves no function a service invokes asynchronously (CloudWatch Logs, EventBridge, S3, SNS) without its EventInvokeConfig', () => {
    const asyncPrincipals = ['logs.amazonaws.com', 'events.amazonaws.com', 's3.amazonaws.com', 'sns.amazonaws.com'];
    let invoked = 0;
    for (const t of Object.values(s.templates)) {
      const configured = new Set(resources(t, 'AWS::Lambda::EventInvokeConfig').map(([, c]) => c.Properties.FunctionName.Ref as string));
      for (const [id, p] of resources(t, 'AWS::Lambda::Permission')) {
        if (!asyncPrincipals.includes(p.Properties.Principal)) continue;
        invoked++;
        const fn = p.Properties.FunctionName['Fn::GetAtt']?.[0] ?? p.Properties.FunctionName.Ref;
        expect(configured.has(fn), `${id} lets ${p.Properties.Principal} invoke ${fn}`).toBe(true);
      }
    }
    expect(invoked).toBe(JOBS.length + 1); // a rule per job, and one permission for every log group's filter
  });
});

describe('their alarms', () => {
  it('fire on any record on the on-failure queue, or any record Lambda could not send there (DestinationDeliveryFailures)', () => {
    for (const def of ASYNC_INVOCATIONS) {
      const a = alarm(`${def.key}AsyncFailures`);
      expect(a, def.key).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      expect(a.AlarmDescription).toContain('#runbook-an-asynchronous-event-failed');
      const metrics = a.Metrics as {
        Id: string;
        Expression?: string;
        MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions: unknown[] }; Period: number; Stat: string };
      }[];
      expect(metrics.find((m) => m.Expression)?.Expression).toBe('MAX([FILL(visible, 0), FILL(lost, 0)])');
      const visible = metrics.find((m) => m.Id === 'visible')!.MetricStat!;
      expect(visible).toMatchObject({ Period: 60, Stat: 'Maximum', Metric: { Namespace: 'AWS/SQS', MetricName: 'ApproximateNumberOfMessagesVisible' } });
      // The queue's name comes from its stack through a parameter named after the queue's construct.
      expect(refersTo(visible.Metric.Dimensions, queueOf(def).id), def.key).toBe(true);
      const lost = metrics.find((m) => m.Id === 'lost')!.MetricStat!;
      expect(lost).toMatchObject({ Stat: 'Sum', Metric: { Namespace: 'AWS/Lambda', MetricName: 'DestinationDeliveryFailures' } });
      expect(refersTo(lost.Metric.Dimensions, functionOf(def.entry).id), def.key).toBe(true);
    }
  });

  it("and each function's errors: the request log's consumer and the invitation trigger (Cognito's, synchronous) their own, the jobs their JobFailed", () => {
    for (const [name, entry] of [
      ['RequestLogConsumer', ASYNC_INVOCATIONS.find((d) => d.key === 'requestLog')!.entry],
      ['InvitationMessage', INVITATION_MESSAGE_TRIGGER],
    ] as const) {
      const a = alarm(`${name}LambdaErrors`);
      expect(a, name).toMatchObject({ Namespace: 'AWS/Lambda', MetricName: 'Errors', Statistic: 'Sum', Period: 300, Threshold: 3 });
      expect(refersTo(a.Dimensions, functionOf(entry).id), name).toBe(true);
    }
    for (const job of JOBS) {
      const errors = (alarm(`${job.id}JobFailed`).Metrics as { MetricStat?: { Metric: { MetricName: string; Dimensions: unknown[] } } }[]).find(
        (m) => m.MetricStat?.Metric.MetricName === 'Errors',
      );
      expect(refersTo(errors?.MetricStat?.Metric.Dimensions, functionOf(job.handler).id), job.id).toBe(true);
    }
  });
});
