import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { THROTTLE } from '../../infra/constructs/api';
import { retryScheduleGroupName } from '../../infra/constructs/webhooks';
import { appContext, cdkJsonContext } from '../../infra/feature-flags';
import { ServiceStack } from '../../infra/stack';
import { bookingPartitions } from '../../shared/bookings/keys';
import { BUCKETS, SERVED_PHOTO_HEADERS } from '../../shared/buckets';
import { type DynamoUse, ITEM_ACTIONS } from '../../shared/db/grants';
import { TABLES } from '../../shared/db/tables';
import { eventPartitions } from '../../shared/events/keys';
import { jobLeadingKeys } from '../../shared/jobs/keys';
import { FALLBACK_USE, grantsOf } from '../../shared/platform/grants';
import { platformPartitions } from '../../shared/platform/keys';
import { JOBS, QUEUES } from '../../shared/queues';
import { ROUTE_LIST, ROUTES } from '../../shared/routes';
import { settlementPartitions } from '../../shared/settlements/keys';
import { actionsOf as actions, isServiceFunction, type Resource, render, type Statement, synthService } from './synth';

/** The service stack (tables, queues, buckets, the API and its routes, consumers, jobs). */
let template: Template;
let service: ReturnType<typeof synthService>;
let synthError: unknown;

beforeAll(() => {
  service = synthService();
  ({ synthError, root: template } = service);
});

describe('CDK stack', () => {
  it('synthesizes with no unacknowledged cdk-nag finding', () => {
    expect(synthError).toBeUndefined();
  });

  it("synthesizes with cdk.json's feature flags, as the CDK CLI hands them to cdk deploy", () => {
    const flags = Object.entries(cdkJsonContext());
    expect(flags.length).toBeGreaterThan(80);
    for (const [flag, value] of flags) expect(service.stack.node.tryGetContext(flag), flag).toEqual(value);
  });

  it('has an API Gateway route for every entry of the route table, plus $default', () => {
    const routes = template.findResources('AWS::ApiGatewayV2::Route');
    const keys = Object.values(routes).map((r) => (r as { Properties: { RouteKey: string } }).Properties.RouteKey);
    for (const r of ROUTE_LIST) expect(keys).toContain(`${r.method} ${r.path}`);
    expect(keys).toContain('$default');
  });

  it('runs every function on Node.js 22, arm64', () => {
    // CDK's own deploy-time handlers (bucket notifications, deployments, custom resources) aside.
    const fns = service.everywhere('AWS::Lambda::Function').filter(([, , f]) => isServiceFunction(f));
    expect(fns.length).toBeGreaterThan(ROUTE_LIST.length);
    for (const [, id, f] of fns) {
      expect(f.Properties.Runtime, id).toBe('nodejs22.x');
      expect(f.Properties.Architectures, id).toEqual(['arm64']);
    }
  });

  it('defines the shared tables with point-in-time recovery, encryption and TTL', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', Object.keys(TABLES).length);
    for (const def of Object.values(TABLES)) {
      template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
        KeySchema: [
          { AttributeName: def.partitionKey, KeyType: 'HASH' },
          { AttributeName: def.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: def.indexes.map((i) => Match.objectLike({ IndexName: i.name })),
        SSESpecification: { SSEEnabled: true },
        TimeToLiveSpecification: { AttributeName: def.ttlAttribute, Enabled: true },
        Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
      });
    }
  });

  const statementsOf = (routeId: string) => service.routeStatements(routeId);

  /**
   * What a function's DynamoDB statements grant, one line per table, action and partition (`data PutItem BOOKING#*`)
   * or index query (`data Query index gsi1`); a statement on a table with no partition bound is `... *`.
   */
  const dynamoGrants = (statements: Statement[]) =>
    statements
      .filter((st) => actions(st).some((a) => a.startsWith('dynamodb:')))
      .flatMap((st) => {
        const keys = (st.Condition as { 'ForAllValues:StringLike'?: { 'dynamodb:LeadingKeys'?: string[] } } | undefined)?.['ForAllValues:StringLike']?.[
          'dynamodb:LeadingKeys'
        ];
        return [st.Resource].flat().flatMap((r) => {
          // From a nested stack, the table's ARN is a parameter named after it (referenceto<stack>DataDataTable...Arn).
          const text = render(r);
          const table = /DataDataTable/.test(text) ? 'data' : /DataAccessTable/.test(text) ? 'access' : text;
          const index = /\/index\/(.+)$/.exec(text)?.[1];
          return actions(st)
            .map((a) => a.replace('dynamodb:', ''))
            .flatMap((a) => (index ? [`${table} ${a} index ${index}`] : (keys ?? ['*']).map((k) => `${table} ${a} ${k}`)));
        });
      })
      .sort();
  const declared = (use: DynamoUse) =>
    Object.entries(use)
      .flatMap(([table, t]) => [
        ...ITEM_ACTIONS.flatMap((a) => (t?.[a] ?? []).map((k) => `${table} ${a} ${k}`)),
        ...(t?.queryIndexes ?? []).map((i) => `${table} Query index ${i}`),
      ])
      .sort();

  it("grants each route's function exactly what its route declares on the tables (the pipeline's part and its own `dynamo`), and no Scan", () => {
    for (const r of ROUTE_LIST) {
      const statements = statementsOf(r.id);
      expect(statements.flatMap(actions), r.id).not.toContain('dynamodb:Scan');
      expect(dynamoGrants(statements), r.id).toEqual(declared(grantsOf(r).dynamo));
      // Every statement on a table's items is bounded by partitions.
      expect(
        dynamoGrants(statements).filter((g) => g.endsWith(' *')),
        r.id,
      ).toEqual([]);
    }
    expect(declared(grantsOf(ROUTES.getHealth).dynamo)).toEqual([]);
    // The platform's part: every keyed route counts its key's requests; a write claims its Idempotency-Key; a list signs its cursors.
    const { rateCounters, idempotency, config } = platformPartitions;
    expect(dynamoGrants(statementsOf('getBooking'))).toContain(`access UpdateItem ${rateCounters}`);
    expect(dynamoGrants(statementsOf('getBooking'))).not.toContain(`access PutItem ${idempotency}`);
    expect(dynamoGrants(statementsOf('cancelBooking'))).toContain(`access PutItem ${idempotency}`);
    expect(dynamoGrants(statementsOf('listBookings'))).toContain(`access GetItem ${config}`);
    // No write reaches the data table beyond the partitions its route names (the review of issue 39, item 3.8).
    expect(dynamoGrants(statementsOf('cancelBooking')).filter((g) => g.startsWith('data PutItem'))).toEqual(
      [bookingPartitions.rows, eventPartitions.events, settlementPartitions.ledger, settlementPartitions.settlement].map((k) => `data PutItem ${k}`).sort(),
    );
    // The $default route authenticates and counts, and nothing else.
    const fallback = Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) => id.startsWith('ApiFallbackRoleDefaultPolicy'))!;
    expect(dynamoGrants((fallback[1] as Resource).Properties.PolicyDocument.Statement)).toEqual(declared(FALLBACK_USE));
  });

  it('lets only the routes that send e-mail call SES, from one sender, on its identity and the configuration set (no wildcard)', () => {
    for (const r of ROUTE_LIST) {
      const ses = statementsOf(r.id).filter((st) => actions(st).includes('ses:SendEmail'));
      expect(ses.length, r.id).toBe(r.sendsMail ? 1 : 0);
      if (!r.sendsMail) continue;
      expect(JSON.stringify(ses[0]!.Condition)).toContain('ses:FromAddress');
      const resources = [ses[0]!.Resource].flat().map(render);
      // In any order: a minimized policy sorts a statement's resources.
      expect(resources.map((x) => x.replace(/^arn:\{Ref:AWS::Partition\}:ses:\{Ref:AWS::Region\}:\{Ref:AWS::AccountId\}:/, '')).sort(), r.id).toEqual([
        expect.stringMatching(/^configuration-set\/\{Ref:\w+\}$/),
        'identity/partner-travel.example',
      ]);
    }
  });

  it('has the webhook queue with its DLQ, a consumer reporting partial batch failures, and the Scheduler group and role for retries', () => {
    const queues = template.findResources('AWS::SQS::Queue');
    const withRedrive = Object.values(queues).filter((q) => (q as { Properties: { RedrivePolicy?: unknown } }).Properties.RedrivePolicy);
    expect(withRedrive.length).toBe(Object.keys(QUEUES).length);
    for (const q of withRedrive)
      expect((q as { Properties: { RedrivePolicy: { maxReceiveCount: number } } }).Properties.RedrivePolicy.maxReceiveCount).toBeGreaterThan(0);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { FunctionResponseTypes: ['ReportBatchItemFailures'] });
    template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: 'PartnerTravelService-webhook-retries' });
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({ Statement: [Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' } })] }),
    });
    const policies = Object.entries(template.findResources('AWS::IAM::Policy'));
    const worker = JSON.stringify(policies.find(([id]) => id.startsWith('WebhookswebhooksConsumerRole'))?.[1] ?? {});
    expect(worker).toContain('scheduler:CreateSchedule');
    expect(worker).toContain('iam:PassRole');
    const scheduler = JSON.stringify(policies.find(([id]) => id.startsWith('WebhooksSchedulerRole'))?.[1] ?? {});
    expect(scheduler).toContain('sqs:SendMessage');
    for (const r of ROUTE_LIST)
      expect(
        statementsOf(r.id).some((st) => actions(st).includes('sqs:SendMessage')),
        r.id,
      ).toBe(!!r.publishesEvents || !!r.sendsTo?.length);
    // The clock advance sends to the clock queue only, its worker to the webhook queue (the events it records).
    const clockSends = statementsOf('advanceSandboxClock').filter((st) => actions(st).includes('sqs:SendMessage'));
    expect(JSON.stringify(clockSends)).toContain('WebhooksclockQueue');
    expect(JSON.stringify(clockSends)).not.toContain('WebhookswebhooksQueue');
  });

  it("gives every queue a visibility timeout of at least 6 times its consumer's timeout (Lambda's guidance)", () => {
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as Resource[];
    expect(mappings).toHaveLength(Object.keys(QUEUES).length);
    const resources = template.toJSON().Resources as Record<string, Resource>;
    for (const m of mappings) {
      const queueId = (m.Properties.EventSourceArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const functionId = (m.Properties.FunctionName as { Ref: string }).Ref;
      const visibility = resources[queueId]!.Properties.VisibilityTimeout as number;
      const timeout = resources[functionId]!.Properties.Timeout as number;
      expect(visibility, queueId).toBeGreaterThanOrEqual(6 * timeout);
    }
    // The local runtime creates its queues from the same definitions (infra/local/provision.ts).
    for (const [key, def] of Object.entries(QUEUES)) expect(def.visibilityTimeoutSeconds, key).toBeGreaterThanOrEqual(6 * def.consumerTimeoutSeconds);
  });

  it('caps each queue consumer with its mapping (maximum concurrency), and no function reserves concurrency (a new account could not deploy it)', () => {
    const resources = template.toJSON().Resources as Record<string, Resource>;
    for (const [key, def] of Object.entries(QUEUES)) {
      const [, mapping] = Object.entries(resources).find(([id, r]) => r.Type === 'AWS::Lambda::EventSourceMapping' && id.startsWith(`Webhooks${key}Consumer`))!;
      expect(mapping.Properties.ScalingConfig, key).toEqual({ MaximumConcurrency: def.maxConcurrency });
      expect(def.maxConcurrency, key).toBeGreaterThanOrEqual(2);
      expect(def.localConcurrency ?? 1, key).toBeLessThanOrEqual(def.maxConcurrency);
    }
    // Lambda keeps at least 100 of the account's concurrency unreserved: on a new account (a quota of 10), any
    // reservation fails the deploy.
    for (const [name, id, f] of service.everywhere('AWS::Lambda::Function'))
      expect(f.Properties, `${name} ${id}`).not.toHaveProperty('ReservedConcurrentExecutions');
  });

  it('schedules every job with its EventBridge cron, including the Sunday 03:00 UTC sandbox refresh', () => {
    for (const job of JOBS) {
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: job.schedule,
        State: 'ENABLED',
        Targets: [Match.objectLike({ Arn: Match.anyValue() })],
      });
    }
    expect(JOBS.map((j) => j.schedule)).toEqual(expect.arrayContaining(['cron(0 3 ? * SUN *)', 'cron(0/5 * * * ? *)', 'cron(30 0 * * ? *)']));
  });

  it('throttles the stage, and each write route lower, before any function runs', () => {
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0] as { Properties: Record<string, any> };
    expect(stage.Properties.DefaultRouteSettings).toEqual({ ThrottlingBurstLimit: THROTTLE.stage.burst, ThrottlingRateLimit: THROTTLE.stage.rate });
    const writes = ROUTE_LIST.filter((r) => r.write);
    expect(Object.keys(stage.Properties.RouteSettings).sort()).toEqual(writes.map((r) => `${r.method} ${r.path}`).sort());
    for (const s of Object.values(stage.Properties.RouteSettings))
      expect(s).toEqual({ ThrottlingBurstLimit: THROTTLE.write.burst, ThrottlingRateLimit: THROTTLE.write.rate });
    // A route added with its settings exists before the stage names it (API Gateway refuses the key of a missing route).
    const [stageId] = Object.keys(template.findResources('AWS::ApiGatewayV2::Stage'));
    const dependsOn = [(template.toJSON().Resources[stageId!] as Resource).DependsOn ?? []].flat();
    const routes = Object.entries(template.findResources('AWS::ApiGatewayV2::Route')).filter(([, r]) => (r as Resource).Properties.RouteKey !== '$default');
    expect(routes).toHaveLength(ROUTE_LIST.length);
    expect(dependsOn).toEqual(expect.arrayContaining(routes.map(([id]) => id)));
  });

  it('never enables fault injection, local webhooks or scaled retry waits in AWS', () => {
    for (const [, , f] of service.everywhere('AWS::Lambda::Function')) {
      const vars = f.Properties.Environment?.Variables ?? {};
      expect(vars).not.toHaveProperty('FAULT_INJECTION');
      expect(vars).not.toHaveProperty('ALLOW_LOCAL_WEBHOOKS');
      expect(vars).not.toHaveProperty('WEBHOOK_WAIT_SCALE');
    }
  });

  const policyOf = (prefix: string) => {
    const entry = Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) => id.startsWith(prefix));
    return (
      (entry?.[1] as { Properties: { PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown; Condition?: unknown }[] } } } | undefined)
        ?.Properties.PolicyDocument.Statement ?? []
    );
  };
  const s3Actions = (statements: { Action: string | string[] }[]) =>
    statements
      .flatMap(actions)
      .filter((a) => a.startsWith('s3:'))
      .sort();

  it('settlements: the monthly cron on the 1st, the queue with its DLQ and a one-tenant consumer reporting partial failures', () => {
    const job = JOBS.find((j) => j.id === 'issueSettlements')!;
    expect(job.schedule).toBe('cron(30 1 1 * ? *)');
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'cron(30 1 1 * ? *)', State: 'ENABLED' });
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: QUEUES.settlements!.visibilityTimeoutSeconds,
      RedrivePolicy: Match.objectLike({ maxReceiveCount: QUEUES.settlements!.maxReceiveCount }),
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    // Only the settlement job may put messages on the settlement queue; the other jobs only nudge webhooks.
    const queueId = Object.keys(template.findResources('AWS::SQS::Queue')).find((id) => id.startsWith('WebhookssettlementsQueue'))!;
    for (const j of JOBS) {
      const sends = JSON.stringify(policyOf(`Jobs${j.id}Role`));
      expect(sends.includes(queueId), j.id).toBe(j.id === 'issueSettlements');
    }
  });

  it('grants each job only what its JobDef names: its own run record, the data table and queues only if listed', () => {
    const dataId = 'DataDataTable';
    const webhookQueueId = Object.keys(template.findResources('AWS::SQS::Queue')).find((id) => id.startsWith('WebhookswebhooksQueue'))!;
    expect(webhookQueueId).toBeDefined();
    for (const j of JOBS) {
      const statements = policyOf(`Jobs${j.id}Role`);
      const writes = statements.filter((st) => actions(st).includes('dynamodb:UpdateItem'));
      // Every write statement is on the access table under leading keys (its run record first), or on the data table if listed.
      for (const st of writes) {
        if (JSON.stringify(st.Resource).includes(dataId)) expect(j.dataTable, `${j.id} writes the data table`).toBe('readwrite');
        else {
          expect(st.Condition, j.id).toEqual({
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...jobLeadingKeys.own(j.id), ...(j.accessWrites ?? [])] },
          });
        }
      }
      const text = JSON.stringify(statements);
      expect(text.includes(dataId), `${j.id} reaches the data table`).toBe(j.dataTable === 'readwrite');
      expect(text.includes(webhookQueueId), `${j.id} sends to the webhook queue`).toBe((j.sendsTo ?? []).includes('webhooks'));
    }
    // The watchdog reads and marks run records, and nothing else.
    const watchdog = JOBS.find((j) => j.id === 'jobWatchdog')!;
    expect(watchdog.dataTable).toBeUndefined();
    expect(watchdog.sendsTo).toBeUndefined();
  });

  it('keeps settlement documents in an encrypted, versioned, object-locked bucket that blocks public access and refuses plain HTTP', () => {
    const buckets = template.findResources('AWS::S3::Bucket', { Properties: { ObjectLockEnabled: true } });
    expect(Object.keys(buckets)).toHaveLength(1);
    const [id, bucket] = Object.entries(buckets)[0]! as [string, { Properties: Record<string, any> }];
    expect(bucket.Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties.ObjectLockConfiguration.Rule.DefaultRetention).toMatchObject({ Mode: 'GOVERNANCE', Days: 3653 });
    const policy = Object.values(template.findResources('AWS::S3::BucketPolicy')).find((p) => JSON.stringify(p).includes(id));
    expect(JSON.stringify(policy)).toContain('aws:SecureTransport');
  });

  /** The CORS rules of the stack's buckets, by the key of their logical id (UploadsXBucket...). */
  const corsRules = () =>
    Object.fromEntries(
      (Object.entries(template.findResources('AWS::S3::Bucket')) as [string, Resource][])
        .filter(([, b]) => b.Properties?.CorsConfiguration)
        .map(([id, b]) => [id.replace(/^Uploads(\w+?)Bucket[0-9A-F]{8}$/, '$1'), b.Properties.CorsConfiguration.CorsRules]),
    );

  it('lets a browser follow a presigned link to a settlement document (one CORS rule: any origin, GET, X-Environment)', () => {
    // The console's fetch redirected from the API reaches S3 with Origin: null (a tainted origin): only * matches it.
    expect(corsRules().settlementDocuments).toEqual([
      { AllowedOrigins: ['*'], AllowedMethods: ['GET'], AllowedHeaders: ['X-Environment'], ExposedHeaders: ['Content-Disposition'] },
    ]);
  });

  it("lets a bank's web app POST a review photo's presigned form from the browser (one CORS rule: any origin, POST, an hour's preflight), and no other bucket has a rule", () => {
    expect(corsRules().reviewPhotos).toEqual([{ AllowedOrigins: ['*'], AllowedMethods: ['POST'], MaxAge: 3600 }]);
    expect(Object.keys(corsRules()).sort()).toEqual(['reviewPhotos', 'settlementDocuments']);
  });

  it('grants the settlement documents least privilege: read routes GetObject, the writers PutObject and AbortMultipartUpload, nobody List or Delete', () => {
    expect(s3Actions(statementsOf('getSettlementInvoice'))).toEqual(['s3:GetObject']);
    expect(s3Actions(statementsOf('getSettlementStatement'))).toEqual(['s3:GetObject']);
    // The writers stream the statement through a multipart upload, which they abort when the write fails; they never read a document back.
    const writer = ['s3:AbortMultipartUpload', 's3:PutObject'];
    expect(s3Actions(statementsOf('runSettlementsTestHelper'))).toEqual(writer);
    const consumer = policyOf('WebhookssettlementsConsumerRole');
    expect(s3Actions(consumer)).toEqual(writer);
    const aborting = service
      .everywhere('AWS::IAM::Policy')
      .filter(([, , p]) => (p.Properties.PolicyDocument.Statement as Statement[]).some((st) => actions(st).includes('s3:AbortMultipartUpload')))
      .map(([, id]) => id.replace(/[0-9A-F]{8}$/, ''));
    expect(aborting.sort()).toEqual([
      'WebhooksclockConsumerRoleDefaultPolicy',
      'WebhookssettlementsConsumerRoleDefaultPolicy',
      'runSettlementsTestHelperFunctionRoleDefaultPolicy',
    ]);
    // It reads the partner's legal identity but writes nothing to the access table.
    const accessWrites = consumer.filter((st) => actions(st).includes('dynamodb:PutItem') && JSON.stringify(st.Resource).includes('DataAccessTable'));
    expect(accessWrites).toEqual([]);
    for (const r of ROUTE_LIST) if (!r.buckets) expect(s3Actions(statementsOf(r.id)), r.id).toEqual([]);
    // The functions that render PDFs carry the fonts and are told where.
    const withFonts = service.everywhere('AWS::Lambda::Function').filter(([, , f]) => JSON.stringify(f).includes('PDF_FONT_DIR'));
    expect(withFonts.map(([, id]) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual([
      'WebhooksclockConsumer',
      'WebhookssettlementsConsumer',
      'runSettlementsTestHelperFunction',
    ]);
  });

  it('aborts multipart uploads left incomplete for a day in every bucket, the object-locked one included', () => {
    const buckets = Object.entries(template.findResources('AWS::S3::Bucket')).filter(([id]) =>
      Object.keys(BUCKETS).some((k) => id.startsWith(`Uploads${k}Bucket`)),
    );
    expect(buckets).toHaveLength(Object.keys(BUCKETS).length);
    for (const [id, b] of buckets as [string, Resource][]) {
      const rules = b.Properties.LifecycleConfiguration?.Rules ?? [];
      // Bucket-wide: no prefix, no tag filter.
      expect(rules, id).toContainEqual({
        Id: 'abort-incomplete-multipart-uploads',
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
        Status: 'Enabled',
      });
    }
  });

  it('retains what it keeps on update and deletion, but not past the rollback of the deploy that created it (RetainExceptOnCreate)', () => {
    const mail = Template.fromStack(service.stack.mailIdentity!);
    const templates: [string, Template][] = [...Object.entries(service.templates), ['mail identity', mail]];
    const kept = templates.flatMap(([name, t]) =>
      Object.entries(t.toJSON().Resources as Record<string, Resource>)
        .filter(([, r]) => r.DeletionPolicy !== undefined || r.UpdateReplacePolicy !== undefined)
        .map(([id, r]) => ({ where: `${name} ${id}`, type: r.Type, deletion: r.DeletionPolicy, replace: r.UpdateReplacePolicy })),
    );
    // A plain Retain would leave each of them behind when a first deploy fails and rolls back.
    for (const k of kept.filter((x) => x.deletion !== 'Delete')) {
      expect(k.deletion, k.where).toBe('RetainExceptOnCreate');
      expect(k.replace, k.where).toBe('Retain');
    }
    const retained = kept.filter((x) => x.deletion === 'RetainExceptOnCreate').map((x) => x.type);
    const count = (type: string) => retained.filter((t) => t === type).length;
    expect(count('AWS::DynamoDB::GlobalTable')).toBe(Object.keys(TABLES).length);
    // The service's buckets, the access logs' and the console's.
    expect(count('AWS::S3::Bucket')).toBe(Object.keys(BUCKETS).length + 2);
    expect([count('AWS::Cognito::UserPool'), count('AWS::SES::EmailIdentity'), count('AWS::KMS::Key'), count('AWS::Logs::LogGroup')]).toEqual([1, 1, 1, 1]);
  });

  it('logs API access and keeps function logs with a retention', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }) });
    const groups = Object.values(template.findResources('AWS::Logs::LogGroup'));
    for (const g of groups) expect((g as { Properties: { RetentionInDays?: number } }).Properties.RetentionInDays).toBeGreaterThan(0);
  });
});

describe('review photos', () => {
  /** The actions of a function's role: a route's by its id, another function's by its logical id prefix in the service stack. */
  const actionsOf = (fn: string) =>
    (ROUTE_LIST.some((r) => r.id === fn)
      ? service.routeStatements(fn)
      : Object.entries(template.findResources('AWS::IAM::Policy'))
          .filter(([id]) => id.startsWith(fn))
          .flatMap(([, p]) => (p as Resource).Properties.PolicyDocument.Statement)
    ).flatMap(actions);

  it('has the photo bucket: private, encrypted, pending/ expiring after a day, ObjectCreated of pending/ and photos/ to the uploads queue', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ Prefix: 'pending/', ExpirationInDays: 1, Status: 'Enabled' })]) },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    });
    template.hasResourceProperties('Custom::S3BucketNotifications', {
      NotificationConfiguration: {
        // pending/: the uploads to check; photos/: what the validator did not write there is deleted.
        QueueConfigurations: ['pending/', 'photos/'].map((Value) =>
          Match.objectLike({ Events: ['s3:ObjectCreated:*'], Filter: { Key: { FilterRules: [{ Name: 'prefix', Value }] } } }),
        ),
      },
    });
  });

  it('has the uploads queue with its DLQ, consumed by the validator with partial batch failures', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: QUEUES.uploads!.visibilityTimeoutSeconds,
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: QUEUES.uploads!.maxReceiveCount },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: QUEUES.uploads!.batchSize,
    });
  });

  it('grants least privilege: the validator may read, copy and delete photo objects, POST /files only put (to sign), reads none', () => {
    const validator = actionsOf('WebhooksuploadsConsumer');
    expect(validator).toEqual(expect.arrayContaining(['s3:GetObject', 's3:PutObject', 's3:DeleteObject']));
    const create = actionsOf('createFile');
    expect(create).toContain('s3:PutObject');
    expect(create).not.toContain('s3:DeleteObject');
    expect(create).not.toContain('s3:GetObject');
    for (const id of ['listReviews', 'getReview', 'getFile'])
      expect(
        actionsOf(id).filter((a) => a.startsWith('s3:')),
        id,
      ).toEqual([]);
  });

  it('lets the validator list only the prefixes it reads, so that S3 answers it 404 for a missing object (403 without), and nobody else list', () => {
    const statements = (prefix: string) =>
      Object.entries(template.findResources('AWS::IAM::Policy'))
        .filter(([id]) => id.startsWith(prefix))
        .flatMap(([, p]) => (p as Resource).Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[]);
    const lists = statements('WebhooksuploadsConsumer').filter((st) => actions(st).includes('s3:ListBucket'));
    expect(lists).toHaveLength(1);
    // On the bucket itself (not its objects), for the notified prefixes only.
    expect(lists[0]!.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^UploadsreviewPhotosBucket/), 'Arn'] });
    expect(lists[0]!.Condition).toEqual({ StringLike: { 's3:prefix': ['pending/*', 'photos/*'] } });
    const listers = service
      .everywhere('AWS::IAM::Policy')
      .filter(([, , p]) => (p.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).some((st) => actions(st).includes('s3:ListBucket')))
      .map(([, id]) => id);
    expect(listers).toEqual([expect.stringMatching(/^WebhooksuploadsConsumerRole/)]);
  });

  it('serves photos/ only through CloudFront with origin access control, HTTPS, logged to the access logs bucket', () => {
    template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: Match.objectLike({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always' }),
    });
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Origins: [Match.objectLike({ OriginPath: '/photos', OriginAccessControlId: Match.anyValue() })],
        DefaultCacheBehavior: Match.objectLike({ ViewerProtocolPolicy: 'redirect-to-https' }),
        Logging: { Bucket: { 'Fn::GetAtt': [Match.stringLikeRegexp('^UploadsAccessLogs'), 'RegionalDomainName'] }, Prefix: 'cloudfront/reviewPhotos/' },
      }),
    });
    expect(service.routeFunction('listReviews').Properties.Environment.Variables).toHaveProperty('PHOTO_BASE_URL');
  });

  it("keeps ACLs on the access logs bucket for CloudFront's standard logs, and lets S3 deliver each bucket's access logs by bucket policy", () => {
    const [[id, bucket]] = Object.entries(template.findResources('AWS::S3::Bucket')).filter(([i]) => i.startsWith('UploadsAccessLogs')) as [[string, Resource]];
    // CloudFront's standard logging (legacy) refuses a bucket whose ACLs are disabled (Object Ownership BucketOwnerEnforced, S3's default).
    expect(bucket.Properties.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'ObjectWriter' }] });
    // No ACL granting the S3 log delivery group write access (@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy).
    expect(bucket.Properties.AccessControl).toBeUndefined();
    const [policy] = Object.values(template.findResources('AWS::S3::BucketPolicy', { Properties: { Bucket: { Ref: id } } })) as Resource[];
    const deliveries = (policy!.Properties.PolicyDocument.Statement as Statement[])
      .filter((st) => JSON.stringify(st.Principal) === JSON.stringify({ Service: 'logging.s3.amazonaws.com' }))
      .map((st) => ({ effect: st.Effect, actions: actions(st), to: render(st.Resource), from: render((st.Condition as any)?.ArnLike?.['aws:SourceArn']) }));
    const logged = Object.entries(template.findResources('AWS::S3::Bucket'))
      .filter(([, b]) => (b as Resource).Properties.LoggingConfiguration)
      .map(([i, b]) => ({
        effect: 'Allow',
        actions: ['s3:PutObject'],
        to: `{${id}.Arn}/${(b as Resource).Properties.LoggingConfiguration.LogFilePrefix}*`,
        from: `{${i}.Arn}`,
      }));
    expect(logged.map((l) => l.to).sort()).toEqual([`{${id}.Arn}/console/*`, `{${id}.Arn}/reviewPhotos/*`, `{${id}.Arn}/settlementDocuments/*`]);
    expect(deliveries).toEqual(expect.arrayContaining(logged));
    expect(deliveries).toHaveLength(logged.length);
  });

  it('serves photos with nosniff and a sandboxing CSP (a response headers policy that overrides the origin)', () => {
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentTypeOptions: { Override: true },
          ContentSecurityPolicy: { ContentSecurityPolicy: SERVED_PHOTO_HEADERS['Content-Security-Policy'], Override: true },
        }),
      }),
    });
    const policies = Object.keys(template.findResources('AWS::CloudFront::ResponseHeadersPolicy')).filter((id) => id.startsWith('UploadsreviewPhotos'));
    expect(policies).toHaveLength(1);
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({ ResponseHeadersPolicyId: { Ref: policies[0] } }),
      }),
    });
  });

  it('gives the validator, which re-encodes photos with sharp, 1.5 GB (and so more CPU)', () => {
    const fn = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) => id.startsWith('WebhooksuploadsConsumer'))!;
    expect((fn[1] as { Properties: { MemorySize: number } }).Properties.MemorySize).toBe(1536);
  });
});

describe('two stacks in one account and region (production and staging)', () => {
  it('each has its own retry schedule group, and its worker may create schedules in that group only', () => {
    const app = new App({ context: appContext({ 'aws:cdk:bundling-stacks': [] }) });
    const env = { account: '123456789012', region: 'eu-west-3' };
    // Both in the tree before the app synthesizes.
    const built = ['PartnerTravelService', 'PartnerTravelStaging'].map((name) => new ServiceStack(app, name, { env }));
    const stacks = built.map((stack) => {
      const t = Template.fromStack(stack);
      const [group] = Object.values(t.findResources('AWS::Scheduler::ScheduleGroup')) as Resource[];
      const worker = Object.entries(t.findResources('AWS::Lambda::Function')).find(([id]) => id.startsWith('WebhookswebhooksConsumer'))![1] as Resource;
      const statements = Object.entries(t.findResources('AWS::IAM::Policy'))
        .filter(([id]) => id.startsWith('WebhookswebhooksConsumerRole'))
        .flatMap(([, p]) => (p as Resource).Properties.PolicyDocument.Statement as Statement[]);
      const schedulerActions = statements.flatMap(actions).filter((a) => a.startsWith('scheduler:'));
      const creates = statements.filter((st) => actions(st).includes('scheduler:CreateSchedule')).flatMap((st) => [st.Resource].flat().map(render));
      return { name: group!.Properties.Name as string, env: worker.Properties.Environment.Variables.SCHEDULER_GROUP, schedulerActions, creates };
    });
    const [production, staging] = stacks as [(typeof stacks)[0], (typeof stacks)[0]];
    expect(production.name).toBe('PartnerTravelService-webhook-retries');
    expect(staging.name).toBe('PartnerTravelStaging-webhook-retries');
    const scheduleArn = (group: string) => `arn:aws:scheduler:eu-west-3:123456789012:schedule/${group}/dlv-0b8f-2`;
    const grants = (patterns: string[], arn: string) =>
      patterns.some((p) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(arn));
    for (const [own, other] of [
      [production, staging],
      [staging, production],
    ] as const) {
      expect(own.env).toBe(own.name);
      // CreateSchedule is the only Scheduler call the worker makes (shared/webhooks/queue.ts).
      expect(own.schedulerActions).toEqual(['scheduler:CreateSchedule']);
      expect(grants(own.creates, scheduleArn(own.name))).toBe(true);
      expect(grants(own.creates, scheduleArn(other.name))).toBe(false);
      expect(grants(own.creates, scheduleArn('default'))).toBe(false);
    }
  });

  it("names the group within Scheduler's 64 characters whatever the stack name, two long names still apart", () => {
    const long = 'PartnerTravelService'.repeat(5);
    const [a, b] = [`${long}A`, `${long}B`].map(retryScheduleGroupName);
    for (const n of [a!, b!]) expect(n).toMatch(/^[0-9a-zA-Z._-]{1,64}$/);
    expect(a).not.toBe(b);
    expect(retryScheduleGroupName('PartnerTravelStaging')).toBe('PartnerTravelStaging-webhook-retries');
  });
});
