import { beforeAll, describe, expect, it } from 'vitest';
import { INVITATION_MESSAGE_TRIGGER } from '../../infra/constructs/console';
import { asyncSettingsOf } from '../../infra/local/async-invoke';
import { Authorizer } from '../../infra/local/iam/enforce';
import { localResources, userPoolArn } from '../../infra/local/iam/local';
import { buildIamModel, type IamModel, LOCAL_ACCOUNT, LOCAL_REGION } from '../../infra/local/iam/model';
import { unusedGrants } from '../../infra/local/iam/report';
import { type IamRequest, iamRequestsFor } from '../../infra/local/iam/requests';
import { type SynthesizedStack, synthesizeTemplates } from '../../infra/local/iam/templates';
import { subscriptionsOf } from '../../infra/local/log-subscriptions';
import { LOCAL_CONFIGURATION_SET, SPECIMEN_MAIL } from '../../infra/mail-address';
import { accessKeys, accessPartitions } from '../../shared/access/keys';
import { ASYNC_INVOCATIONS, onFailureQueueName } from '../../shared/async-invocations';
import { bookingKeys } from '../../shared/bookings/keys';
import { BUCKETS } from '../../shared/buckets';
import { dynamoLine } from '../../shared/db/grants';
import { PLATFORM_UNTESTED } from '../../shared/platform/grants';
import { platformKeys, platformPartitions } from '../../shared/platform/keys';
import { JOBS, QUEUES } from '../../shared/queues';
import { REQUEST_LOG_CONSUMER, REQUEST_LOG_FILTER_PATTERN } from '../../shared/request-logs/entry';
import { requestLogKeys } from '../../shared/request-logs/keys';
import { ROUTE_LIST } from '../../shared/routes';

/**
 * The synthesized policies, evaluated as AWS evaluates them (@cloud-copilot/iam-simulate, through the local IAM
 * layer's Authorizer): what each function and each AWS service must be able to do, and what they must not.
 */
let templates: SynthesizedStack[];
let model: IamModel;
let iam: Authorizer;
const queueUrl = (name: string) => `http://127.0.0.1:9324/000000000000/${name}`;
const arn = (service: string, resource: string) => `arn:aws:${service}:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${resource}`;
const TABLE = { access: arn('dynamodb', 'table/access'), data: arn('dynamodb', 'table/data') };
/** The local on-failure queues of the asynchronously invoked functions, by key. */
const onFailure = Object.fromEntries(
  ASYNC_INVOCATIONS.map((d) => {
    const name = onFailureQueueName(d.key);
    return [d.key, { name, url: queueUrl(name), arn: arn('sqs', name) }];
  }),
);

beforeAll(async () => {
  const queues = Object.fromEntries(
    Object.entries(QUEUES).map(([k, q]) => [k, { name: q.name, url: queueUrl(q.name), arn: arn('sqs', q.name), dlqUrl: queueUrl(`${q.name}-dlq`) }]),
  );
  templates = await synthesizeTemplates();
  model = buildIamModel(templates, localResources(queues, 'us-east-1_local', onFailure));
  iam = new Authorizer(model);
});

const allowed = async (principal: string, r: IamRequest) => (await iam.authorize(principal, r)).allowed;
const routeFunction = (id: string) => `function:${ROUTE_LIST.find((r) => r.id === id)!.handler}`;
const item = (action: string, table: string, pk: string): IamRequest => ({
  action: `dynamodb:${action}`,
  resource: table,
  context: { 'dynamodb:LeadingKeys': [pk] },
});

describe('the templates the local IAM layer reads', () => {
  it("are a deploy's: synthesized with cdk.json's feature flags, so their policies are minimized (@aws-cdk/aws-iam:minimizePolicies)", () => {
    // Two statements of one policy that minimizePolicies merges: same effect, principal and condition, and the same resources or actions.
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const set = (v: unknown) =>
      [v ?? []]
        .flat()
        .map((x) => JSON.stringify(x))
        .sort();
    const mergeable: string[] = [];
    for (const { path, template } of templates) {
      for (const [id, r] of Object.entries(template.Resources ?? {})) {
        if (r.Type !== 'AWS::IAM::Policy' && r.Type !== 'AWS::IAM::ManagedPolicy') continue;
        const statements = r.Properties!.PolicyDocument.Statement as Record<string, unknown>[];
        statements.forEach((a, i) => {
          for (const b of statements.slice(i + 1)) {
            const alike = same(a.Effect, b.Effect) && same(a.Condition, b.Condition) && same(a.Principal, b.Principal);
            if (alike && (same(set(a.Resource), set(b.Resource)) || same(set(a.Action), set(b.Action)))) mergeable.push(`${path} ${id}`);
          }
        });
      }
    }
    expect(mergeable).toEqual([]);
  });
});

describe('function roles', () => {
  it('every function of the service has its role in the model, by handler entry', () => {
    const entries = [...ROUTE_LIST.map((r) => r.handler), ...Object.values(QUEUES).map((q) => q.consumer), ...JOBS.map((j) => j.handler), REQUEST_LOG_CONSUMER];
    for (const e of entries) expect(model.roles[`function:${e}`], e).toBeDefined();
  });

  it("the sign-out function may update its member's item (sessions_revoked_at), and nothing else of the partner's", async () => {
    const signOut = routeFunction('signOut');
    const member = accessKeys.member('p1', 'm1').pk;
    expect(await allowed(signOut, item('UpdateItem', TABLE.access, member))).toBe(true);
    expect(await allowed(signOut, item('PutItem', TABLE.access, member))).toBe(false);
    expect(await allowed(signOut, item('DeleteItem', TABLE.access, member))).toBe(false);
    expect(await allowed(signOut, item('UpdateItem', TABLE.access, accessKeys.apiKey('k1').pk))).toBe(false);
    // The request pipeline's own records, as every keyed route.
    expect(await allowed(signOut, item('PutItem', TABLE.access, platformKeys.idempotency('p1', 'live', 'k').pk))).toBe(true);
  });

  it('a keyed route that does not change access writes only the platform records of the access table', async () => {
    const me = routeFunction('getMe');
    expect(await allowed(me, item('UpdateItem', TABLE.access, platformKeys.rateCounter('k1', 0).pk))).toBe(true);
    expect(await allowed(me, item('UpdateItem', TABLE.access, accessKeys.member('p1', 'm1').pk))).toBe(false);
    expect(await allowed(me, item('PutItem', TABLE.data, bookingKeys.booking('1').pk))).toBe(false);
  });

  it("the operators' managed policy is the admin CLI's principal: tables, the two queues it feeds, never a Scan", async () => {
    expect(model.roles.operator).toBeDefined();
    expect(await allowed('operator', item('UpdateItem', TABLE.access, accessKeys.member('p1', 'm1').pk))).toBe(true);
    expect(await allowed('operator', { action: 'dynamodb:Query', resource: `${TABLE.data}/index/gsi1`, context: {} })).toBe(true);
    expect(await allowed('operator', { action: 'dynamodb:Scan', resource: TABLE.data, context: {} })).toBe(false);
    expect(await allowed('operator', { action: 'sqs:SendMessage', resource: arn('sqs', QUEUES.settlements!.name), context: {} })).toBe(true);
    expect(await allowed('operator', { action: 'sqs:ReceiveMessage', resource: arn('sqs', QUEUES.settlements!.name), context: {} })).toBe(false);
    // A command's e-mails go on the mail queue (MAIL_DELIVERY=queue): an operator's shell never sends as the service.
    expect(await allowed('operator', { action: 'sqs:SendMessage', resource: arn('sqs', QUEUES.mail!.name), context: {} })).toBe(true);
    expect(await allowed('operator', { action: 'ses:SendEmail', resource: arn('ses', 'identity/partner-travel.example'), context: {} })).toBe(false);
  });

  it('the functions that send e-mail may SendEmail from the local sender, through its identity and the configuration set, and no other', async () => {
    const send = (from: string, configurationSet = LOCAL_CONFIGURATION_SET) =>
      iamRequestsFor('SESv2Client', 'SendEmailCommand', {
        FromEmailAddress: from,
        Destination: { ToAddresses: ['traveler@bank-atlas.ma'] },
        ConfigurationSetName: configurationSet,
      })!;
    const allAllowed = async (principal: string, rs: IamRequest[]) => (await Promise.all(rs.map((r) => allowed(principal, r)))).every(Boolean);
    const senders = [
      routeFunction('createBooking'),
      routeFunction('cancelBooking'),
      `function:${QUEUES.webhooks!.consumer}`,
      `function:${QUEUES.mail!.consumer}`,
    ];
    for (const f of senders) {
      expect(await allAllowed(f, send(SPECIMEN_MAIL.from)), f).toBe(true);
      expect(await allAllowed(f, send('bookings@other-sender.ma')), f).toBe(false);
      expect(await allAllowed(f, send(SPECIMEN_MAIL.from, 'another-set')), f).toBe(false);
      expect(await allowed(f, { action: 'sqs:SendMessage', resource: arn('sqs', QUEUES.mail!.name), context: {} }), f).toBe(true);
    }
    expect(await allAllowed(routeFunction('getMe'), send(SPECIMEN_MAIL.from))).toBe(false);
  });

  it("the request log's consumer may only BatchWrite the log's partitions; its routes only read them in the data table, the list by Query, the entry by GetItem", async () => {
    const consumer = `function:${REQUEST_LOG_CONSUMER}`;
    const day = requestLogKeys.day('p1', 'live', '2026-11-24');
    const pointer = requestLogKeys.byId('p1', 'live', 'r1').pk;
    expect(await allowed(consumer, { action: 'dynamodb:BatchWriteItem', resource: TABLE.data, context: { 'dynamodb:LeadingKeys': [day, pointer] } })).toBe(
      true,
    );
    expect(
      await allowed(consumer, {
        action: 'dynamodb:BatchWriteItem',
        resource: TABLE.data,
        context: { 'dynamodb:LeadingKeys': [day, bookingKeys.booking('1').pk] },
      }),
    ).toBe(false);
    for (const action of ['PutItem', 'GetItem', 'Query']) expect(await allowed(consumer, item(action, TABLE.data, day)), action).toBe(false);
    expect(await allowed(consumer, item('BatchWriteItem', TABLE.access, day))).toBe(false);
    expect(await allowed(routeFunction('listRequestLogs'), item('Query', TABLE.data, day))).toBe(true);
    expect(await allowed(routeFunction('listRequestLogs'), item('GetItem', TABLE.data, pointer))).toBe(false);
    expect(await allowed(routeFunction('getRequestLog'), item('GetItem', TABLE.data, pointer))).toBe(true);
    expect(await allowed(routeFunction('getRequestLog'), item('GetItem', TABLE.data, day))).toBe(true);
    expect(await allowed(routeFunction('getRequestLog'), item('Query', TABLE.data, day))).toBe(false);
    for (const id of ['listRequestLogs', 'getRequestLog']) {
      const fn = routeFunction(id);
      expect(await allowed(fn, item('GetItem', TABLE.data, bookingKeys.booking('1').pk)), id).toBe(false);
      expect(await allowed(fn, item('Query', TABLE.data, bookingKeys.booking('1').pk)), id).toBe(false);
      expect(await allowed(fn, { action: 'dynamodb:Query', resource: `${TABLE.data}/index/gsi1`, context: {} }), id).toBe(false);
      expect(await allowed(fn, item('PutItem', TABLE.data, day)), id).toBe(false);
    }
  });

  it("every grant a route accepts as untested is one of its role's grants, as the least-privilege report names it", () => {
    // With no usage, the report lists every grant of a function as never used.
    const lines = new Map(unusedGrants(model, {}).map((u) => [u.principal, new Set(u.unused)]));
    for (const r of ROUTE_LIST) {
      const granted = lines.get(routeFunction(r.id))!;
      for (const line of Object.keys(r.untested ?? {})) expect(granted.has(line), `${r.id}: ${line}`).toBe(true);
    }
    // The platform's, for every keyed route that has the grant (a read route has no Idempotency-Key to release).
    const platform = Object.keys(PLATFORM_UNTESTED);
    const write = lines.get(routeFunction('cancelBooking'))!;
    expect(platform.filter((l) => !write.has(l))).toEqual([dynamoLine('access', 'GetItem', 'CONFIG'), dynamoLine('access', 'PutItem', 'CONFIG')]);
    expect(lines.get(routeFunction('listBookings'))!.has(dynamoLine('access', 'PutItem', 'CONFIG'))).toBe(true);
  });

  it('records, per allowing statement, the dynamodb:LeadingKeys patterns each call fell under', async () => {
    const authorizer = new Authorizer(model);
    const signOut = routeFunction('signOut');
    const member = accessKeys.member('p1', 'm1').pk;
    const counter = platformKeys.rateCounter('k1', 0).pk;
    for (const pk of [member, counter]) expect((await authorizer.authorize(signOut, item('UpdateItem', TABLE.access, pk))).allowed).toBe(true);
    const used = authorizer.usage[signOut]![`dynamodb:UpdateItem ${TABLE.access}`]!;
    expect(used.count).toBe(2);
    const reached = [accessPartitions.partner, platformPartitions.rateCounters].sort();
    expect(
      Object.values(used.patterns ?? {})
        .flat()
        .sort(),
    ).toEqual(reached);
    expect(used.partitions).toEqual(reached);
    // The report: UpdateItem was used, for those two of its patterns; the others of its statement were not.
    const report = unusedGrants(model, authorizer.usage).find((u) => u.principal === signOut)!;
    const updates = report.unused.filter((l) => l.startsWith('dynamodb:UpdateItem on table access'));
    expect(updates.sort()).toEqual([platformPartitions.authFailures, platformPartitions.idempotency].map((k) => dynamoLine('access', 'UpdateItem', k)).sort());
  });

  it('no function may Scan', async () => {
    for (const principal of Object.keys(model.roles).filter((p) => p.startsWith('function:'))) {
      for (const table of Object.values(TABLE))
        expect(await allowed(principal, { action: 'dynamodb:Scan', resource: table, context: {} }), principal).toBe(false);
    }
  });
});

describe('AWS services can do what the design needs of them', () => {
  const service = (name: string) => `service:${name}`;
  const only = (prefix: string) => {
    const found = Object.keys(model.resourcePolicies).filter((k) => k.startsWith(prefix));
    expect(found, prefix).toHaveLength(1);
    return found[0]!;
  };

  it('CloudWatch alarms publish to the on-call topic, and may use its key', async () => {
    const topic = only('arn:aws:sns:');
    const key = only('arn:aws:kms:');
    const context = { 'aws:SourceArn': arn('cloudwatch', 'alarm:PartnerTravel-5xx'), 'aws:SourceAccount': LOCAL_ACCOUNT };
    expect(await allowed(service('cloudwatch.amazonaws.com'), { action: 'sns:Publish', resource: topic, context })).toBe(true);
    for (const action of ['kms:GenerateDataKey', 'kms:Decrypt']) {
      expect(await allowed(service('cloudwatch.amazonaws.com'), { action, resource: key, context }), action).toBe(true);
    }
    // Another account's alarm may not, nor use the key.
    const foreign = { 'aws:SourceArn': 'arn:aws:cloudwatch:us-east-1:210987654321:alarm:x', 'aws:SourceAccount': '210987654321' };
    expect(await allowed(service('cloudwatch.amazonaws.com'), { action: 'sns:Publish', resource: topic, context: foreign })).toBe(false);
    expect(await allowed(service('cloudwatch.amazonaws.com'), { action: 'kms:GenerateDataKey', resource: key, context: foreign })).toBe(false);
  });

  it('S3 sends the review-photo bucket object events to the uploads queue, and no other bucket may', async () => {
    const upload = { action: 'sqs:SendMessage', resource: arn('sqs', QUEUES.uploads!.name) };
    const from = (bucket: string) => ({ ...upload, context: { 'aws:SourceArn': `arn:aws:s3:::${bucket}`, 'aws:SourceAccount': LOCAL_ACCOUNT } });
    expect(await allowed(service('s3.amazonaws.com'), from(BUCKETS.reviewPhotos!.name))).toBe(true);
    expect(await allowed(service('s3.amazonaws.com'), from('somebody-elses-bucket'))).toBe(false);
  });

  it('EventBridge Scheduler assumes the retry role, which sends to the webhook queue only', async () => {
    const [principal, role] = Object.entries(model.roles).find(
      ([, r]) => model.trustPolicies[r.roleArn] && JSON.stringify(model.trustPolicies[r.roleArn]).includes('scheduler.amazonaws.com'),
    )!;
    expect(
      await allowed(service('scheduler.amazonaws.com'), { action: 'sts:AssumeRole', resource: role.roleArn, context: { 'aws:SourceAccount': LOCAL_ACCOUNT } }),
    ).toBe(true);
    // Another account's schedule may not (the confused deputy).
    expect(
      await allowed(service('scheduler.amazonaws.com'), { action: 'sts:AssumeRole', resource: role.roleArn, context: { 'aws:SourceAccount': '210987654321' } }),
    ).toBe(false);
    expect(await allowed(principal, { action: 'sqs:SendMessage', resource: arn('sqs', QUEUES.webhooks!.name), context: {} })).toBe(true);
    expect(await allowed(principal, { action: 'sqs:SendMessage', resource: arn('sqs', QUEUES.settlements!.name), context: {} })).toBe(false);
    // The worker passes that role, and only to the Scheduler.
    const worker = `function:${QUEUES.webhooks!.consumer}`;
    expect(await allowed(worker, { action: 'iam:PassRole', resource: role.roleArn, context: { 'iam:PassedToService': 'scheduler.amazonaws.com' } })).toBe(true);
    expect(await allowed(worker, { action: 'iam:PassRole', resource: role.roleArn, context: { 'iam:PassedToService': 'lambda.amazonaws.com' } })).toBe(false);
  });

  it("CloudWatch Logs hands every keyed route's request lines to the request log's consumer, for this stack's log groups only", async () => {
    const subscriptions = subscriptionsOf(model);
    const keyed = ROUTE_LIST.filter((r) => r.access === 'key');
    expect(subscriptions.map((s) => s.source).sort()).toEqual(keyed.map((r) => r.handler).sort());
    const consumerArn = model.functions[REQUEST_LOG_CONSUMER]!.arn;
    for (const s of subscriptions) {
      expect(s).toMatchObject({ filterPattern: REQUEST_LOG_FILTER_PATTERN, destination: { entry: REQUEST_LOG_CONSUMER, arn: consumerArn } });
      const context = { 'aws:SourceArn': arn('logs', `log-group:${s.logGroup}:*`), 'aws:SourceAccount': LOCAL_ACCOUNT };
      expect(await allowed(service('logs.amazonaws.com'), { action: 'lambda:InvokeFunction', resource: consumerArn, context }), s.logGroup).toBe(true);
    }
    // The consumer's own log group is not subscribed (its lines would come back to it), and another stack's log group may not invoke it.
    expect(subscriptions.some((s) => s.logGroup === model.functions[REQUEST_LOG_CONSUMER]!.logGroup)).toBe(false);
    const foreign = { 'aws:SourceArn': arn('logs', 'log-group:OtherService-ApiLogs:*'), 'aws:SourceAccount': LOCAL_ACCOUNT };
    expect(await allowed(service('logs.amazonaws.com'), { action: 'lambda:InvokeFunction', resource: consumerArn, context: foreign })).toBe(false);
    expect(await allowed(service('events.amazonaws.com'), { action: 'lambda:InvokeFunction', resource: consumerArn, context: {} })).toBe(false);
  });

  it("Cognito invokes the invitation's CustomMessage trigger for the console's user pool only; the trigger reads the pending invitations only", async () => {
    const poolArn = userPoolArn('us-east-1_local');
    const fnArn = model.functions[INVITATION_MESSAGE_TRIGGER]!.arn;
    expect(model.userPoolTriggers).toEqual([{ userPoolArn: poolArn, trigger: 'CustomMessage', functionArn: fnArn }]);
    const invoke = (sourceArn: string) => ({
      action: 'lambda:InvokeFunction',
      resource: fnArn,
      context: { 'aws:SourceArn': sourceArn, 'aws:SourceAccount': LOCAL_ACCOUNT },
    });
    expect(await allowed(service('cognito-idp.amazonaws.com'), invoke(poolArn))).toBe(true);
    expect(await allowed(service('cognito-idp.amazonaws.com'), invoke(`${poolArn}-other`))).toBe(false);
    expect(await allowed(service('events.amazonaws.com'), invoke(poolArn))).toBe(false);
    // What it reads: the names the service left for the invitee's address; no partner, member or key, and no write.
    const trigger = `function:${INVITATION_MESSAGE_TRIGGER}`;
    const pending = accessKeys.invitation('salma@bank.example').pk;
    expect(await allowed(trigger, item('GetItem', TABLE.access, pending))).toBe(true);
    for (const pk of [accessKeys.partner('p1').pk, accessKeys.member('p1', 'm1').pk, accessKeys.identity('s1').pk, accessKeys.apiKey('k1').pk]) {
      expect(await allowed(trigger, item('GetItem', TABLE.access, pk)), pk).toBe(false);
    }
    for (const action of ['Query', 'PutItem', 'DeleteItem', 'UpdateItem', 'BatchGetItem']) {
      expect(await allowed(trigger, item(action, TABLE.access, pending)), action).toBe(false);
    }
    expect(await allowed(trigger, item('GetItem', TABLE.data, pending))).toBe(false);
    expect(await allowed(trigger, { action: 'dynamodb:Scan', resource: TABLE.access, context: {} })).toBe(false);
  });

  it("Lambda applies each asynchronously invoked function's EventInvokeConfig, and sends its failed events to its own on-failure queue with its role", async () => {
    const settings = asyncSettingsOf(model, onFailure);
    for (const def of ASYNC_INVOCATIONS) {
      const fnArn = model.functions[def.entry]!.arn;
      expect(model.asyncConfigs[fnArn], def.key).toEqual({
        maximumRetryAttempts: 2,
        maximumEventAgeInSeconds: def.maxEventAgeSeconds,
        onFailure: onFailure[def.key]!.arn,
      });
      // ... which the local runtime applies.
      expect(settings(def.entry), def.key).toEqual({
        functionArn: fnArn,
        retryAttempts: 2,
        maxEventAgeSeconds: def.maxEventAgeSeconds,
        onFailure: { arn: onFailure[def.key]!.arn, url: onFailure[def.key]!.url },
      });
      const send = (queue: string) => ({ action: 'sqs:SendMessage', resource: onFailure[queue]!.arn, context: {} });
      expect(await allowed(`function:${def.entry}`, send(def.key)), def.key).toBe(true);
      const other = ASYNC_INVOCATIONS.find((d) => d.key !== def.key)!.key;
      expect(await allowed(`function:${def.entry}`, send(other)), `${def.key} -> ${other}`).toBe(false);
    }
    // A function no service invokes asynchronously has no EventInvokeConfig and nowhere to send a record.
    expect(model.asyncConfigs[model.functions[ROUTE_LIST[0]!.handler]!.arn]).toBeUndefined();
    expect(settings(ROUTE_LIST[0]!.handler)).not.toHaveProperty('onFailure');
  });

  it("Lambda assumes every function role, for this account's functions only (aws:SourceAccount: the confused deputy)", async () => {
    for (const role of Object.values(model.roles).filter((r) => r.principal.startsWith('function:'))) {
      expect(await allowed(service('lambda.amazonaws.com'), { action: 'sts:AssumeRole', resource: role.roleArn, context: {} }), role.name).toBe(true);
      const foreign = { 'aws:SourceAccount': '210987654321' };
      expect(await allowed(service('lambda.amazonaws.com'), { action: 'sts:AssumeRole', resource: role.roleArn, context: foreign }), role.name).toBe(false);
    }
  });

  it('API Gateway invokes each route function for its own route, EventBridge each job', async () => {
    const fnArns = Object.keys(model.resourcePolicies).filter((k) => k.startsWith('arn:aws:lambda:'));
    const invokedBy = (svc: string) => fnArns.filter((a) => JSON.stringify(model.resourcePolicies[a]).includes(svc));
    expect(invokedBy('apigateway.amazonaws.com').length).toBe(ROUTE_LIST.length + 1); // and the $default fallback
    expect(invokedBy('events.amazonaws.com').length).toBe(JOBS.length);
    for (const fn of invokedBy('events.amazonaws.com')) {
      const rule = ([model.resourcePolicies[fn]![0]!.Statement].flat() as unknown as { Condition: { ArnLike: { 'aws:SourceArn': string } } }[])[0]!.Condition
        .ArnLike['aws:SourceArn'];
      const context = { 'aws:SourceArn': rule, 'aws:SourceAccount': LOCAL_ACCOUNT };
      expect(await allowed(service('events.amazonaws.com'), { action: 'lambda:InvokeFunction', resource: fn, context })).toBe(true);
      expect(
        await allowed(service('events.amazonaws.com'), {
          action: 'lambda:InvokeFunction',
          resource: fn,
          context: { ...context, 'aws:SourceArn': arn('events', 'rule/other') },
        }),
      ).toBe(false);
    }
  });
});
