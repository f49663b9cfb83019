import { join } from 'node:path';
import { type CfnResource, Duration, Names, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { IUserPool, IUserPoolClient } from 'aws-cdk-lib/aws-cognito';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { BucketAccess } from '../../shared/buckets';
import { type DynamoUse, useStatements } from '../../shared/db/grants';
import { TABLES, type TableDef, type TableName } from '../../shared/db/tables';
import { FUNCTION_TIMEOUT_SECONDS, type IdentityAction } from '../../shared/http/route-def';
import { SERVICE_NAME } from '../../shared/kernel/logger';
import { METRICS_NAMESPACE } from '../../shared/kernel/metrics';
import { QUEUES } from '../../shared/queues';
import { FONT_FILES, FONT_PACKAGE_DIR } from '../../shared/settlements/fonts';
import { deploymentOf } from '../environments';
import { LAMBDA_PLATFORM, lambdaPlatformPackages, platformPackagesCheck } from '../lambda-packages';
import { LAMBDA_ESBUILD_OPTIONS } from './esbuild-cjs';
import { ENTRY_METADATA } from './local-names';
import type { MailBinding } from './mail';
import { nagResource } from './nag';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');

/**
 * How the bundling's `npm ci` installs the native packages beside a bundle: for the Lambda platform whatever
 * machine synthesizes, from the npm cache when it holds them (the registry only for what it lacks), no audit.
 */
const NODE_MODULES_ENV = {
  npm_config_os: LAMBDA_PLATFORM.os,
  npm_config_cpu: LAMBDA_PLATFORM.cpu,
  npm_config_libc: LAMBDA_PLATFORM.libc,
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

export interface ServiceFunctionProps {
  /** Handler entry relative to the repository root (functions/...). */
  entry: string;
  description?: string;
  timeout?: Duration;
  memorySize?: number;
  /** The function renders PDFs: the TTF fonts are copied into its bundle (fonts/) and PDF_FONT_DIR points there. */
  pdfFonts?: boolean;
  /** The function serves the API reference page: the bundling builds it into the bundle and REFERENCE_HTML points there. */
  referencePage?: boolean;
  /** The function serves the partner guides: the bundling renders them into the bundle (guides/) and GUIDES_DIR points there. */
  guidePages?: boolean;
  /**
   * Packages with native binaries (LAMBDA_NODE_MODULES, e.g. sharp): left out of the esbuild bundle and installed
   * beside it by `npm ci` from the lock file, with the binaries of the Lambda platform (linux, arm64, glibc)
   * whatever machine synthesizes; the bundling fails if those binaries are missing (infra/lambda-packages.ts).
   */
  nodeModules?: string[];
  /**
   * The function's log group (default: `<id>Logs` beside the function, made by functionLogGroup). Route
   * functions live in nested stacks but keep their log groups in the service stack, at the construct path
   * (and so the logical id and the log history) they had before the split.
   */
  logGroup?: LogGroup;
}

/** A function's log group: the deployment's retention, deleted with the function's stack. */
export const functionLogGroup = (scope: Construct, id: string) =>
  new LogGroup(scope, id, { retention: deploymentOf(scope).logRetention, removalPolicy: RemovalPolicy.DESTROY });

/**
 * The role and log group of one of CDK's deploy-time handlers (a bucket deployment, an AWS custom resource),
 * made here instead of CDK's defaults: the role has no managed policy (CDK's would carry
 * AWSLambdaBasicExecutionRole) and writes only to that log group, kept for the deployment's retention.
 */
export function deployTimeHandler(scope: Construct, id: string) {
  const logGroup = functionLogGroup(scope, `${id}Logs`);
  const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  logGroup.grantWrite(role);
  return { logGroup, role };
}

/** The reference page's file name in a bundle. */
export const REFERENCE_FILE = 'reference.html';
/** The rendered guides' directory in a bundle. */
export const GUIDES_BUNDLE_DIR = 'guides';

/** Where the bundle of a PDF-rendering function carries its fonts, as the Lambda sees it. */
export const LAMBDA_FONT_DIR = '/var/task/fonts';

export interface TableBinding {
  table: ITableV2;
  def: TableDef;
  access: 'read' | 'readwrite';
  /** Writes only to items whose partition key matches one of these patterns (dynamodb:LeadingKeys). */
  writeLeadingKeys?: string[];
  /** Reads only these partitions (dynamodb:LeadingKeys), with GetItem and Query of the table itself: no index, no batch. */
  readLeadingKeys?: string[];
  /** With readLeadingKeys: GetItem only, for a function that reads single items by their key. */
  getItemOnly?: boolean;
}

/** No Scan anywhere: every access pattern is a key lookup or a Query. */
const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];
const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

export interface QueueBinding {
  queue: IQueue;
  envVar: string;
  access: 'send' | 'consume';
}

export interface BucketBinding {
  bucket: IBucket;
  envVar: string;
  access: BucketAccess;
  /**
   * Prefixes whose objects the function reads and must tell gone from refused: s3:ListBucket on the bucket,
   * only for these prefixes (s3:prefix). S3 answers 404 for a missing key only to a caller that may list it,
   * 403 to anyone else.
   */
  listPrefixes?: string[];
}

/** The console's identity provider, given to every API function (shared/identity/config.ts reads it). */
export interface IdentityBinding {
  userPool: IUserPool;
  client: IUserPoolClient;
  /** https://<the console's CloudFront domain>: the one origin CORS allows. */
  consoleOrigin: string;
}

/** What the operators' admin CLI may do on the user pool (infra/constructs/operators.ts); a route function gets its `usesIdentity` only. */
export const IDENTITY_ADMIN_ACTIONS = [
  'cognito-idp:AdminCreateUser',
  'cognito-idp:AdminGetUser',
  'cognito-idp:AdminDisableUser',
  'cognito-idp:AdminEnableUser',
  'cognito-idp:AdminDeleteUser',
  'cognito-idp:AdminUserGlobalSignOut',
  'cognito-idp:AdminSetUserPassword',
];

/**
 * How cdk-nag names an attribute of `resource` in the findings of a policy of `consumer`'s stack:
 * `<LogicalId.Attr>` in the same stack; from a nested stack, the parameter CDK passes the value through.
 */
export function nagRef(consumer: Construct, resource: CfnResource, attr: string): string {
  if (Stack.of(consumer) === resource.stack) return `<${resource.stack.getLogicalId(resource)}.${attr}>`;
  return `<referenceto${Names.nodeUniqueId(resource.node)}${attr}>`.replace(/[^A-Za-z0-9<>]/g, '');
}

/**
 * Every Lambda of the service: Node.js 22 on arm64, bundled by esbuild, JSON
 * logs at the deployment's level with its retention, X-Ray active tracing,
 * its own role with no managed policy. `bind` grants the least privilege a
 * function needs on a table, queue or bucket and sets the matching environment
 * variable in the same call.
 */
export class ServiceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const deployment = deploymentOf(scope);
    const lockFile = join(REPO_ROOT, 'package-lock.json');
    const platformPackages = props.nodeModules?.length ? lambdaPlatformPackages(lockFile, props.nodeModules) : [];
    const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    const logGroup = props.logGroup ?? functionLogGroup(scope, `${id}Logs`);
    super(scope, id, {
      entry: join(REPO_ROOT, props.entry),
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
      role,
      logGroup,
      tracing: Tracing.ACTIVE,
      projectRoot: REPO_ROOT,
      depsLockFilePath: lockFile,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_LOG_LEVEL: deployment.logLevel,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        // Traces carry the request id and route, never a response (it may hold customer data).
        POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
        DEPLOYMENT_ENV: deployment.name,
        SERVICE_STAGE: 'aws',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      bundling: {
        target: LAMBDA_ESBUILD_OPTIONS.target,
        format: OutputFormat.CJS,
        minify: LAMBDA_ESBUILD_OPTIONS.minify,
        sourceMap: true,
        // Bundle the SDK too: the version that ran the tests is the version deployed.
        externalModules: [],
        mainFields: LAMBDA_ESBUILD_OPTIONS.mainFields,
        define: LAMBDA_ESBUILD_OPTIONS.define,
        banner: LAMBDA_ESBUILD_OPTIONS.banner.js,
        esbuildArgs: { '--alias': Object.entries(LAMBDA_ESBUILD_OPTIONS.alias).map(([pkg, shim]) => `${pkg}=${shim}`) },
        ...(props.nodeModules?.length ? { nodeModules: props.nodeModules, environment: NODE_MODULES_ENV } : {}),
        ...(props.pdfFonts || props.referencePage || props.guidePages || platformPackages.length
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (inputDir: string, outputDir: string) => [
                  // After the install: the platform's binaries are there, or the synth stops and says how to get them.
                  ...(platformPackages.length ? [platformPackagesCheck(outputDir, platformPackages)] : []),
                  ...(props.pdfFonts
                    ? [
                        `mkdir -p "${outputDir}/fonts"`,
                        ...Object.values(FONT_FILES).map((f) => `cp "${inputDir}/${FONT_PACKAGE_DIR}/${f}" "${outputDir}/fonts/${f}"`),
                      ]
                    : []),
                  // The reference page, built from the OpenAPI document of this synth's route table.
                  ...(props.referencePage ? [`cd "${inputDir}" && node --import tsx infra/reference-docs.ts "${outputDir}/${REFERENCE_FILE}"`] : []),
                  // The partner guides, rendered from docs/guides as they are at this synth.
                  ...(props.guidePages ? [`cd "${inputDir}" && node --import tsx infra/guides.ts "${outputDir}/${GUIDES_BUNDLE_DIR}"`] : []),
                ],
              },
            }
          : {}),
      },
    });
    (this.node.defaultChild as CfnResource).addMetadata(ENTRY_METADATA, props.entry);
    if (props.pdfFonts) this.addEnvironment('PDF_FONT_DIR', LAMBDA_FONT_DIR);
    if (props.referencePage) this.addEnvironment('REFERENCE_HTML', `/var/task/${REFERENCE_FILE}`);
    if (props.guidePages) this.addEnvironment('GUIDES_DIR', `/var/task/${GUIDES_BUNDLE_DIR}`);
    logGroup.grantWrite(role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason: 'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions.',
    });
  }

  bind(b: { tables?: TableBinding[]; queues?: QueueBinding[]; buckets?: BucketBinding[] }): this {
    for (const t of b.tables ?? []) {
      if (t.readLeadingKeys) {
        this.addToRolePolicy(
          new PolicyStatement({
            actions: t.getItemOnly ? ['dynamodb:GetItem'] : ['dynamodb:GetItem', 'dynamodb:Query'],
            resources: [t.table.tableArn],
            conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': t.readLeadingKeys } },
          }),
        );
        this.addEnvironment(t.def.envVar, t.table.tableName);
        continue;
      }
      const resources = [t.table.tableArn, `${t.table.tableArn}/index/*`];
      this.addToRolePolicy(new PolicyStatement({ actions: READ_ACTIONS, resources }));
      if (t.access === 'readwrite') {
        this.addToRolePolicy(
          new PolicyStatement({
            actions: WRITE_ACTIONS,
            resources: [t.table.tableArn],
            ...(t.writeLeadingKeys ? { conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': t.writeLeadingKeys } } } : {}),
          }),
        );
      }
      this.addEnvironment(t.def.envVar, t.table.tableName);
      Validations.of(this.role!).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagRef(this, t.table.node.defaultChild as CfnResource, 'Arn')}/index/*]`,
        reason: `Queries use the secondary indexes of the ${t.def.name} table, whose ARNs end in /index/*; the grant is limited to that table.`,
      });
    }
    for (const q of b.queues ?? []) {
      // SendMessage only (SendMessageBatch is authorized as SendMessage): the code never asks a queue its URL or attributes.
      if (q.access === 'send') {
        this.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [q.queue.queueArn] }));
        q.queue.encryptionMasterKey?.grantEncryptDecrypt(this);
      } else q.queue.grantConsumeMessages(this);
      this.addEnvironment(q.envVar, q.queue.queueUrl);
      this.addEnvironment(`${q.envVar}_ARN`, q.queue.queueArn);
    }
    for (const bk of b.buckets ?? []) {
      // Objects only; Delete only for 'manage': GetObject signs presigned downloads too, PutObject presigned uploads.
      // PutObject covers every step of a multipart upload but its abort (s3:AbortMultipartUpload).
      const actions = {
        read: ['s3:GetObject'],
        put: ['s3:PutObject'],
        readwrite: ['s3:GetObject', 's3:PutObject'],
        'write-multipart': ['s3:PutObject', 's3:AbortMultipartUpload'],
        manage: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
      }[bk.access];
      this.addToRolePolicy(new PolicyStatement({ actions, resources: [bk.bucket.arnForObjects('*')] }));
      if (bk.listPrefixes?.length) {
        this.addToRolePolicy(
          new PolicyStatement({
            actions: ['s3:ListBucket'],
            resources: [bk.bucket.bucketArn],
            conditions: { StringLike: { 's3:prefix': bk.listPrefixes.map((p) => `${p}*`) } },
          }),
        );
      }
      this.addEnvironment(bk.envVar, bk.bucket.bucketName);
      Validations.of(this.role!).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagRef(this, bk.bucket.node.defaultChild as CfnResource, 'Arn')}/*]`,
        reason: `Object keys are made at run time (per settlement, per upload); the grant is ${actions.join(' and ')} on the objects of that one bucket.`,
      });
    }
    return this;
  }

  /**
   * Exactly what `use` says the function does to the tables (shared/db/grants.ts): per table, the item actions that
   * reach the same partitions in one statement bounded by them (dynamodb:LeadingKeys), and Query of each index it
   * names on that index only. No Scan, no other index, no partition it does not name.
   */
  useTables(use: DynamoUse, tables: Record<TableName, ITableV2>): this {
    for (const st of useStatements(use)) {
      const table = tables[st.table];
      this.addToRolePolicy(
        new PolicyStatement({
          actions: st.actions.map((a) => `dynamodb:${a}`),
          resources: [st.index ? `${table.tableArn}/index/${st.index}` : table.tableArn],
          ...(st.leadingKeys ? { conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': st.leadingKeys } } } : {}),
        }),
      );
      this.addEnvironment(TABLES[st.table].envVar, table.tableName);
    }
    return this;
  }

  /**
   * The console's user pool and app client (USER_POOL_ID, USER_POOL_CLIENT_ID: console sessions' tokens are
   * verified in the function with aws-jwt-verify) and its origin (CONSOLE_ORIGIN). `actions`: what the function
   * does to console users (a route's `usesIdentity`), on that one pool.
   */
  useIdentity(identity: IdentityBinding, actions: readonly IdentityAction[] = []): this {
    this.addEnvironment('USER_POOL_ID', identity.userPool.userPoolId);
    this.addEnvironment('USER_POOL_CLIENT_ID', identity.client.userPoolClientId);
    this.addEnvironment('CONSOLE_ORIGIN', identity.consoleOrigin);
    if (actions.length) {
      this.addToRolePolicy(new PolicyStatement({ actions: actions.map((a) => `cognito-idp:${a}`), resources: [identity.userPool.userPoolArn] }));
    }
    return this;
  }

  /** The issuer's legal identity (infra/issuer.ts): only the functions that issue invoices get it. */
  useIssuer(issuer: Record<string, string>): this {
    for (const [k, v] of Object.entries(issuer)) this.addEnvironment(k, v);
    return this;
  }

  /**
   * SES v2 SendEmail from the deployment's sender, with the settings the code reads (MAIL_FROM,
   * MAIL_CONFIGURATION_SET, OPERATORS_EMAIL), and the mail queue to put what SES refused on. The grant is what
   * SES authorizes a send against: the sending identity (the sender's domain) and the configuration set, plus,
   * while the account is in the SES sandbox, the recipients' identities; always from the one sender address.
   */
  allowMail(mail: MailBinding): this {
    const stack = Stack.of(this);
    const arn = (resource: string, resourceName: string) => stack.formatArn({ service: 'ses', resource, resourceName });
    const recipients = arn('identity', '*');
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [arn('identity', mail.domain), arn('configuration-set', mail.configurationSetName), ...(mail.sandbox ? [recipients] : [])],
        conditions: { StringEquals: { 'ses:FromAddress': mail.from } },
      }),
    );
    this.addEnvironment('MAIL_FROM', mail.from);
    this.addEnvironment('MAIL_CONFIGURATION_SET', mail.configurationSetName);
    this.addEnvironment('OPERATORS_EMAIL', mail.operators);
    this.bind({ queues: [{ queue: mail.retryQueue, envVar: QUEUES.mail!.envVar, access: 'send' }] });
    if (mail.sandbox) {
      Validations.of(this.role!).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagResource(this, recipients)}]`,
        reason:
          "-c mailSandbox=true: in the SES sandbox, SendEmail is authorized against each recipient's identity, and the recipients are whichever addresses were verified; the statement keeps to one sender address.",
      });
    }
    return this;
  }
}
