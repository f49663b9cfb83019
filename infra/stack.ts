import { Aspects, CfnOutput, NestedStack, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { REQUEST_LOG_ASYNC } from '../shared/async-invocations';
import { BUCKETS, type BucketAccess } from '../shared/buckets';
import { TABLES } from '../shared/db/tables';
import { QUEUES } from '../shared/queues';
import { ROUTE_LIST } from '../shared/routes';
import { ApiConstruct } from './constructs/api';
import { onFailureQueue } from './constructs/async-invocation';
import { BoundServiceRoles } from './constructs/confused-deputy';
import { ConsoleConstruct } from './constructs/console';
import { DataConstruct } from './constructs/data';
import { JobsConstruct } from './constructs/jobs';
import { MailConstruct, MailIdentityStack } from './constructs/mail';
import { MonitoringConstruct } from './constructs/monitoring';
import { OperatorsConstruct } from './constructs/operators';
import { RequestLogsConstruct } from './constructs/request-logs';
import { UploadsConstruct } from './constructs/uploads';
import { WebhooksConstruct } from './constructs/webhooks';
import { issuerOf } from './issuer';
import { mailOf } from './mail';

/**
 * The whole service: one construct per concern. The stateful resources, the API and its routes are in this
 * stack; each feature's route functions in a nested stack (ApiConstruct), the alarms in the Operations one.
 */
export class ServiceStack extends Stack {
  readonly data: DataConstruct;
  readonly api: ApiConstruct;
  readonly console: ConsoleConstruct;
  readonly monitoring: MonitoringConstruct;
  readonly requestLogs: RequestLogsConstruct;
  /** The stack of the sender's SES identity (<id>Mail), deployed before this one; none with -c mailIdentity=existing. */
  readonly mailIdentity?: MailIdentityStack;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    Aspects.of(this).add(new BoundServiceRoles());
    this.data = new DataConstruct(this, 'Data');
    // The issuer's legal identity (-c issuer=PATH, or the example one as a SPECIMEN), for the functions that issue invoices.
    const issuer = issuerOf(this);
    // The sender and the operators' address (-c mailFrom, -c operatorsEmail), and the sender's SES identity.
    const mailSettings = mailOf(this);
    if (mailSettings.identity === 'declare') {
      this.mailIdentity = new MailIdentityStack(scope, `${id}Mail`, { env: props?.env, domain: mailSettings.domain });
      this.addStackDependency(this.mailIdentity, 'Cognito refuses a user pool whose sending identity is not verified');
    }
    const mail = new MailConstruct(this, 'Mail', mailSettings);
    const webhooks = new WebhooksConstruct(this, 'Webhooks', { tables: this.data.tables });
    const mailBinding = mail.binding(webhooks.queues.mail!);
    for (const [name, q] of Object.entries(QUEUES)) if (q.sendsMail) webhooks.consumers[name]!.allowMail(mailBinding);
    const events = { queue: webhooks.queues.webhooks!, envVar: QUEUES.webhooks!.envVar, access: 'send' as const };
    const uploads = new UploadsConstruct(this, 'Uploads', { queues: webhooks.queues });
    const bucket = (name: string, access: BucketAccess) => {
      const b = uploads.buckets[name];
      if (!b) throw new Error(`no bucket ${name} in shared/buckets.ts`);
      return { bucket: b, envVar: BUCKETS[name]!.envVar, access };
    };
    const settlementQueue = { queue: webhooks.queues.settlements!, envVar: QUEUES.settlements!.envVar, access: 'send' as const };
    // The settlement consumer reads the partner's legal identity, stores the documents and records settlement.issued.
    webhooks.consumers.settlements!.bind({
      tables: [{ table: this.data.tables.access, def: TABLES.access, access: 'read' }],
      queues: [events],
      buckets: [bucket('settlementDocuments', 'write-multipart')],
    });
    // The clock worker reads the partner's legal identity and its team (settlements, e-mails) and records events.
    webhooks.consumers.clock!.bind({ tables: [{ table: this.data.tables.access, def: TABLES.access, access: 'read' }], queues: [events] });
    for (const [name, q] of Object.entries(QUEUES)) if (q.rendersPdf) webhooks.consumers[name]!.useIssuer(issuer);
    // Consumers that reach buckets (the upload validator: read, copy and delete photo objects). The consumer of a
    // bucket's notifications reads the notified objects, which may be gone by then: it may list the notified
    // prefixes, so that S3 answers it 404 for a missing one instead of 403.
    for (const [name, q] of Object.entries(QUEUES)) {
      for (const [b, access] of Object.entries(q.buckets ?? {})) {
        const notify = BUCKETS[b]?.notify;
        webhooks.consumers[name]!.bind({ buckets: [{ ...bucket(b, access), ...(notify?.queue === name ? { listPrefixes: notify.prefixes } : {}) }] });
      }
    }
    const photoBaseUrl = uploads.servedUrls.reviewPhotos!;
    webhooks.consumers.uploads!.addEnvironment('PHOTO_BASE_URL', photoBaseUrl);
    // Jobs record events (completion, refresh) and the sweeper re-drives deliveries and idle clock advances; the
    // settlement job fans out to its queue.
    const clockQueue = { queue: webhooks.queues.clock!, envVar: QUEUES.clock!.envVar, access: 'send' as const };
    const jobs = new JobsConstruct(this, 'Jobs', {
      tables: this.data.tables,
      sendable: { webhooks: events, settlements: settlementQueue, clock: clockQueue },
      bucket,
    });
    this.api = new ApiConstruct(this, 'Api', {
      tables: this.data.tables,
      bindRoute: (route, fn) => {
        if (route.publishesEvents) fn.bind({ queues: [events] });
        for (const name of route.sendsTo ?? []) fn.bind({ queues: [{ queue: webhooks.queues[name]!, envVar: QUEUES[name]!.envVar, access: 'send' }] });
        for (const [name, access] of Object.entries(route.buckets ?? {})) fn.bind({ buckets: [bucket(name, access)] });
        if (route.photoUrls) fn.addEnvironment('PHOTO_BASE_URL', photoBaseUrl);
        if (route.rendersPdf) fn.useIssuer(issuer);
        if (route.sendsMail) fn.allowMail(mailBinding);
      },
    });
    // The request log: the keyed route functions' log groups hand their request lines to one consumer (a nested
    // stack of its own: a subscription filter per log group).
    const requestLogStack = new NestedStack(this, 'RequestLogs', {
      description: "Partner travel service, request log: its consumer and the route log groups' subscription filters",
    });
    this.requestLogs = new RequestLogsConstruct(requestLogStack, 'RequestLog', {
      table: this.data.tables.data,
      onFailure: onFailureQueue(this, 'RequestLogConsumerOnFailure', REQUEST_LOG_ASYNC),
      logGroups: Object.fromEntries(ROUTE_LIST.filter((r) => r.access === 'key').map((r) => [r.id, this.api.logGroups[r.id]!])),
    });
    // The console (user pool, app client, its files behind CloudFront) calls the API, which knows its pool and origin.
    this.console = new ConsoleConstruct(this, 'Console', {
      apiOrigin: this.api.api.apiEndpoint,
      documentsBucket: uploads.buckets.settlementDocuments!,
      logsBucket: uploads.accessLogs!,
      mail,
      accessTable: this.data.tables.access,
    });
    this.api.useConsole(this.console);
    // What the operators' admin CLI may do (a managed policy for their role; enforced on the CLI locally).
    new OperatorsConstruct(this, 'Operators', {
      tables: Object.values(this.data.tables),
      queues: [webhooks.queues.webhooks!, webhooks.queues.settlements!, webhooks.queues.mail!],
      buckets: [
        { bucket: uploads.buckets.settlementDocuments!, actions: ['s3:GetObject', 's3:PutObject'] },
        { bucket: uploads.buckets.reviewPhotos!, actions: ['s3:GetObject', 's3:DeleteObject'] },
      ],
      userPool: this.console.userPool,
    });
    // The alarms, the on-call topic and the dashboard (about 140 resources) live in a nested stack of their own:
    // CloudFormation takes at most 500 resources per stack.
    const operations = new NestedStack(this, 'Operations', { description: 'Alarms, on-call topic and dashboard of the partner travel service' });
    this.monitoring = new MonitoringConstruct(operations, 'Monitoring', {
      api: this.api.api,
      routeFunctions: this.api.functions,
      fallback: this.api.fallback,
      queues: webhooks.queues,
      dlqs: webhooks.dlqs,
      consumers: webhooks.consumers,
      jobFunctions: jobs.functions,
      tables: this.data.tables,
      // What AWS invokes asynchronously (on-failure queues) and the functions services invoke beside the API and queues.
      asyncFunctions: { ...jobs.async, requestLog: this.requestLogs.async },
      serviceInvoked: { RequestLogConsumer: this.requestLogs.consumer, InvitationMessage: this.console.invitationMessage },
    });
    new CfnOutput(this, 'SettlementQueueUrl', { value: webhooks.queues.settlements!.queueUrl });
    // The admin CLI queues the e-mails of its commands there (booking:cancel), to the operators' address among others.
    new CfnOutput(this, 'MailQueueUrl', { value: webhooks.queues.mail!.queueUrl });
    new CfnOutput(this, 'OperatorsEmail', { value: mailSettings.operators });
    new CfnOutput(this, 'SettlementBucketName', { value: uploads.buckets.settlementDocuments!.bucketName });
    new CfnOutput(this, 'PhotoBaseUrl', { value: photoBaseUrl });
    new CfnOutput(this, 'AccessTableName', { value: this.data.tables.access.tableName });
    new CfnOutput(this, 'DataTableName', { value: this.data.tables.data.tableName });
  }
}
