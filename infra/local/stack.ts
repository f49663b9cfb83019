import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { isAbsolute, join, relative } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { BUCKETS } from '../../shared/buckets';
import { TABLES } from '../../shared/db/tables';
import { JOBS, QUEUES } from '../../shared/queues';
import { FONT_PACKAGE_DIR } from '../../shared/settlements/fonts';
import { LOCAL_RETRY_SCHEDULE_GROUP } from '../../shared/webhooks/schedule';
import { buildGuides } from '../guides';
import { exampleIssuer } from '../issuer-file';
import { domainOf, LOCAL_CONFIGURATION_SET, SPECIMEN_MAIL } from '../mail-address';
import { buildReferenceHtml } from '../reference-docs';
import { startApiGateway } from './api-gateway';
import { asyncSettingsOf, asyncWaitScale, startAsyncInvoker } from './async-invoke';
import { startLocalCognito } from './cognito';
import { cognitoTriggers } from './cognito-triggers';
import { startConsoleServer } from './console-serve';
import { startCron, verboseLevel } from './cron';
import { startGsiLag } from './gsi-lag';
import { startIam, userPoolArn } from './iam/local';
import { functionPrincipal, runAs } from './iam/principal';
import { ROOT, withinInvocation } from './lambda';
import { startLogSubscriptions, subscriptionsOf } from './log-subscriptions';
import { captureFunctionLogs, functionLogFile } from './logs';
import { provisionBuckets, provisionOnFailureQueues, provisionQueues, provisionTables } from './provision';
import { watchQueues } from './queue-watch';
import { type RuntimeInfo, runtimeFile } from './runtime-info';
import { forwardS3Events } from './s3-events';
import { startScheduler } from './scheduler';
import { closeServer, freePort, startDynamo, startS3, startSqs } from './services';
import { startLocalSes } from './ses';
import { startPoller } from './sqs-poller';

export { defaultStateDir, type RuntimeInfo, readRuntime, runningStacks, runtimeFile } from './runtime-info';

export interface LocalStackOptions {
  port: number;
  /** The console's port, its own origin as CloudFront's is in AWS (default: port + 1, or a free one when that is taken). */
  consolePort?: number;
  stateDir: string;
  reset?: boolean;
  log?: (line: string) => void;
  /** Called when a server the stack depends on dies (DynamoDB Local): the stack cannot answer any more. */
  onFatal?: (message: string) => void;
  /**
   * What must be done before the stack can serve every route (the first-start catalog import, the demo
   * partner): it runs before the API listens, so /v1/health answers only once the stack is ready.
   */
  beforeListen?: () => Promise<void>;
  /**
   * How far behind its table a global secondary index reads, in ms (infra/local/gsi-lag.ts); 0 or unset:
   * immediate, as DynamoDB Local alone. `npm start` and the integration tests set it (LOCAL_GSI_LAG_MS).
   */
  gsiLagMs?: number;
}

const LOCAL_CREDENTIALS = { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' };

/** The command line of a process: null when there is no such process, undefined when `ps` cannot tell. */
function commandOf(pid: number): string | null | undefined {
  const r = spawnSync('ps', ['-p', String(pid), '-o', 'command='], { encoding: 'utf8' });
  if (r.error) return undefined;
  return r.status === 0 ? r.stdout : null;
}

/** Only a process that is still DynamoDB Local is reaped: PIDs get reused. */
function isDynamoLocal(pid: number): boolean {
  return commandOf(pid)?.includes('DynamoDBLocal') ?? false;
}

/** The script this process runs, as recorded in the lock and runtime files (relative to the checkout when inside it). */
function entryScript(): string {
  const script = process.argv[1] ?? '';
  const rel = relative(ROOT, script);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split('\\').join('/') : script;
}

/**
 * Whether `pid` is still the local stack that wrote a lock or runtime file: alive, and running the
 * script it recorded (infra/local/start.ts for files written before the script was recorded). A PID
 * reused by another process is not a stack. Without `ps` (nothing to tell them apart) a live PID counts.
 */
export function isLocalStackProcess(pid: number, entry = 'infra/local/start.ts'): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const command = commandOf(pid);
  return command === undefined || (command?.includes(entry) ?? false);
}

/** The lock a stack holds on its state directory, whatever its port: one stack per state directory. */
export const lockFile = (stateDir: string) => join(stateDir, 'stack.lock');

interface StackLock {
  pid: number;
  port: number;
  entry: string;
  javaPid?: number;
  started_at: string;
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined; // absent, or cut by a crash
  }
}

export class StateDirInUseError extends Error {}

const inUse = (stateDir: string, l: { pid: number; port: number }) =>
  new StateDirInUseError(
    `a local stack (pid ${l.pid}, port ${l.port}, http://127.0.0.1:${l.port}/v1) is already running with state in ${stateDir}: ` +
      `stop it first (Ctrl-C in its terminal, or kill ${l.pid}), or give this one its own LOCAL_STATE_DIR. Nothing was changed.`,
  );

/** Kills the DynamoDB Local of a stack that was killed without cleanup (only if that PID is still DynamoDB Local). */
function reapJava(javaPid: number | undefined) {
  if (!javaPid || !isDynamoLocal(javaPid)) return;
  try {
    process.kill(javaPid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/**
 * Refuses to start when a live stack uses this state directory (on any port), and cleans up after a
 * stack that was killed without cleanup: its DynamoDB Local is killed and its files removed. A PID
 * that a stack left behind and another process now uses is not taken for a stack.
 */
export function reapStale(stateDir: string, port: number) {
  const lock = readJson<StackLock>(lockFile(stateDir));
  if (lock && lock.pid !== process.pid) {
    if (isLocalStackProcess(lock.pid, lock.entry)) throw inUse(stateDir, lock);
    reapJava(lock.javaPid);
    rmSync(lockFile(stateDir), { force: true });
  }
  const f = runtimeFile(stateDir, port);
  const info = readJson<RuntimeInfo>(f);
  if (!info) return;
  if (info.pid !== process.pid && isLocalStackProcess(info.pid, info.entry)) throw inUse(stateDir, info);
  reapJava(info.javaPid);
  rmSync(f, { force: true });
}

/** Takes the state directory's lock (atomically: of two stacks started at once, one gets it). */
function takeLock(stateDir: string, lock: StackLock) {
  for (let i = 0; ; i++) {
    try {
      writeFileSync(lockFile(stateDir), JSON.stringify(lock, null, 2), { flag: 'wx' });
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || i > 0) throw e;
      reapStale(stateDir, lock.port);
    }
  }
}

/**
 * Boots the embedded local stack: DynamoDB Local, the SQS and S3 servers, the
 * Scheduler and SES emulations, tables/queues/buckets from the shared definitions, the
 * SQS pollers, the cron runner and the API Gateway emulation.
 */
export async function startLocalStack(opts: LocalStackOptions) {
  const log = opts.log ?? ((l: string) => console.log(l));
  const stateDir = opts.stateDir;
  // Claims made before this instant belong to a run that is gone; later ones to this run's workers.
  const bootedAt = new Date();
  // Refuse (or clean up after) another stack on this state directory before touching its files (--reset included).
  if (existsSync(stateDir)) reapStale(stateDir, opts.port);
  if (opts.reset) rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const lock: StackLock = { pid: process.pid, port: opts.port, entry: entryScript(), started_at: bootedAt.toISOString() };
  takeLock(stateDir, lock);
  // However this process ends (Ctrl-C during the boot included), it leaves no lock of its own behind.
  const dropLock = () => {
    if (readJson<StackLock>(lockFile(stateDir))?.pid === process.pid) rmSync(lockFile(stateDir), { force: true });
  };
  process.once('exit', dropLock);

  const [ddbPort, sqsPort, s3Port, schedPort, cognitoPort, sesPort, lagPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const stops: (() => Promise<void>)[] = [];
  let stopping = false;
  // What the functions write (JSON logs and EMF metrics) goes to the local log file, as Lambda's goes to CloudWatch Logs.
  const logFile = functionLogFile(stateDir, opts.port);
  stops.push(captureFunctionLogs(logFile, { echo: 'stdout', echoLevel: process.env.LOG_LEVEL ?? 'WARN', rotate: true }));
  const stopAll = async () => {
    stopping = true;
    for (const s of stops.reverse()) await s().catch(() => undefined);
    rmSync(runtimeFile(stateDir, opts.port), { force: true });
    dropLock();
  };
  /** A server or resource the stack depends on is gone: stop, and say why (once). */
  const fail = (message: string) => {
    if (stopping) return;
    const fatal =
      opts.onFatal ??
      ((m: string) => {
        console.error(m);
        process.exit(1);
      });
    void stopAll().then(() => fatal(message));
  };

  try {
    // The console's origin, needed from now on (the functions' CONSOLE_ORIGIN, invitations); it serves once the stack is ready.
    const consoleH = await startConsoleServer(opts.consolePort ?? (opts.port ? opts.port + 1 : 0), opts.consolePort === undefined);
    stops.push(consoleH.stop);
    const dynamoP = startDynamo(join(stateDir, 'dynamodb'), ddbPort);
    // The policies of the synthesized templates, which the IAM layer enforces (synthesized meanwhile, or cached).
    const iamP = startIam.prepare();
    iamP.catch(() => undefined); // awaited below
    // The reference page (GET /v1/docs), built from this route table while the servers start.
    const referenceP = buildReferenceHtml(join(stateDir, 'reference.html'));
    referenceP.catch(() => undefined); // awaited below; a failure before then must not go unhandled
    // The partner guides beside it (GET /v1/docs/guides), from the same docs/guides.
    const guides = buildGuides(join(stateDir, 'guides'));
    const sqsH = await startSqs(sqsPort);
    stops.push(sqsH.stop);
    const s3H = await startS3(join(stateDir, 's3'), s3Port);
    stops.push(s3H.stop);
    const dynamoH = await dynamoP;
    stops.push(dynamoH.stop);
    // A stack killed from now on leaves its DynamoDB Local's PID where the next start finds it.
    writeFileSync(lockFile(stateDir), JSON.stringify({ ...lock, javaPid: dynamoH.process.pid }, null, 2));
    // Without DynamoDB Local every keyed request would answer 500 forever: stop, and say why.
    dynamoH.process.once('exit', (code, signal) =>
      fail(
        `DynamoDB Local (pid ${dynamoH.process.pid}) exited unexpectedly (${signal ?? `code ${code}`}); the local stack cannot answer without it and stops. Start it again with 'npm start'.`,
      ),
    );

    const clientConfig = { region: LOCAL_CREDENTIALS.AWS_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
    const ddb = new DynamoDBClient({ ...clientConfig, endpoint: dynamoH.endpoint });
    const sqs = new SQSClient({ ...clientConfig, endpoint: sqsH.endpoint });
    const s3 = new S3Client({ ...clientConfig, endpoint: s3H.endpoint, forcePathStyle: true });
    await provisionTables(ddb);
    // Index reads lag their table as in AWS: the service reaches DynamoDB Local through this layer.
    const gsiLag = await startGsiLag({ target: dynamoH.endpoint, port: lagPort, lagMs: opts.gsiLagMs ?? 0, ddb });
    if (gsiLag) stops.push(gsiLag.stop);
    const queues = await provisionQueues(sqs);
    // Where Lambda puts the asynchronous events it gave up on (the functions' on-failure destinations).
    const onFailure = await provisionOnFailureQueues(sqs);
    // A queue gone from the SQS server (it keeps them in memory) takes the events, advances and retries sent to it:
    // stop, as when DynamoDB Local dies, and the restart provisions it again and re-drives from the tables (below).
    const queueGone = (missing: string[]) =>
      fail(
        `The local SQS server no longer has the queue(s) ${missing.map((u) => u.split('/').pop()).join(', ')} (deleted while the stack ran); ` +
          `the local stack cannot deliver events, advances or retries without them and stops. Start it again with 'npm start': it creates them again and re-drives what was pending.`,
      );
    const allQueues = [...Object.values(queues).flatMap((q) => [q.url, q.dlqUrl]), ...Object.values(onFailure).map((q) => q.url)];
    stops.push(watchQueues(sqs, allQueues, queueGone).stop);
    await provisionBuckets(s3);
    // S3 -> SQS event notifications: s3rver's object events, forwarded as S3 sends them (bucket and prefix as in shared/buckets.ts).
    s3H.onEvent(forwardS3Events(sqs, queues, log));
    // SES: the local deployment's sender (MAIL_FROM, the example one by default) is its one verified identity, as
    // the CDK stack's is; in the sandbox (LOCAL_SES_SANDBOX=true) so are the addresses of LOCAL_SES_VERIFIED.
    const mailFrom = process.env.MAIL_FROM ?? SPECIMEN_MAIL.from; // the templates' too (localMailContext)
    const sesH = await startLocalSes({
      port: sesPort,
      mailboxDir: join(stateDir, 'mailbox'),
      region: LOCAL_CREDENTIALS.AWS_REGION,
      identities: [domainOf(mailFrom), ...(process.env.LOCAL_SES_VERIFIED ?? '').split(',').filter((a) => a.trim())],
      configurationSets: [LOCAL_CONFIGURATION_SET],
      sandbox: process.env.LOCAL_SES_SANDBOX === 'true',
    });
    stops.push(sesH.stop);
    // The console's user pool (cognito-local behind a layer that restores Cognito's rules), on a port of its own
    // (the browser's and the service's endpoint) and at /cognito/ on the API's port (its tokens' issuer, the JWKS).
    const origin = `http://127.0.0.1:${opts.port}`;
    const cognito = await startLocalCognito(stateDir, origin, consoleH.url);
    const cognitoH = await cognito.listen(cognitoPort);
    stops.push(cognitoH.stop);
    // From here on, every AWS call a function makes is authorized as AWS would (infra/local/iam).
    const iam = await startIam({ prepared: iamP, stateDir, queues, onFailure, userPoolId: cognito.userPoolId, log });
    stops.push(iam.stop);
    // The pool's triggers (the invitation's CustomMessage), invoked as Cognito would, once IAM may check Cognito's invocations.
    cognito.useTriggers(cognitoTriggers({ model: iam.model, userPoolArn: userPoolArn(cognito.userPoolId), allows: iam.allows, log }));
    const env: Record<string, string> = {
      ...LOCAL_CREDENTIALS,
      AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: cognitoH.endpoint,
      USER_POOL_ID: cognito.userPoolId,
      USER_POOL_CLIENT_ID: cognito.clientId,
      COGNITO_ISSUER: cognito.issuer,
      CONSOLE_ORIGIN: consoleH.origin,
      // The invitation's sign-in link (the CustomMessage trigger's; the CDK sets the CloudFront one).
      CONSOLE_URL: consoleH.url,
      AWS_ENDPOINT_URL_DYNAMODB: gsiLag?.endpoint ?? dynamoH.endpoint,
      // What the stack runs with, for the scripts and tests that read its runtime file (the handlers never read it).
      LOCAL_GSI_LAG_MS: String(gsiLag?.lagMs ?? 0),
      AWS_ENDPOINT_URL_SQS: sqsH.endpoint,
      AWS_ENDPOINT_URL_S3: s3H.endpoint,
      AWS_ENDPOINT_URL_SCHEDULER: `http://127.0.0.1:${schedPort}`,
      AWS_ENDPOINT_URL_SESV2: sesH.endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      SERVICE_STAGE: 'local',
      MAIL_FROM: mailFrom,
      OPERATORS_EMAIL: process.env.OPERATORS_EMAIL ?? SPECIMEN_MAIL.operators,
      MAIL_CONFIGURATION_SET: LOCAL_CONFIGURATION_SET,
      // Local development only: webhooks may target http://127.0.0.1 receivers. Never set in AWS.
      ALLOW_LOCAL_WEBHOOKS: process.env.ALLOW_LOCAL_WEBHOOKS ?? 'true',
      WEBHOOK_WAIT_SCALE: process.env.WEBHOOK_WAIT_SCALE ?? '1',
      // Test runs only (X-Fault-Inject: after-commit kills a request after its commit). Never set in AWS.
      FAULT_INJECTION: process.env.FAULT_INJECTION ?? 'off',
      // The template's retry group (<stack name>-webhook-retries) when IAM is enforced, else the local one.
      SCHEDULER_GROUP: LOCAL_RETRY_SCHEDULE_GROUP,
      // What the templates give the functions that the local runtime cannot know otherwise (the Scheduler's role).
      ...iam.environment,
      // Where the local SES delivers (admin mail:list reads it).
      MAILBOX_DIR: join(stateDir, 'mailbox'),
      // The invoice fonts, from the npm package (the Lambda bundles carry them in fonts/).
      PDF_FONT_DIR: join(ROOT, FONT_PACKAGE_DIR),
      LOCAL_STATE_DIR: stateDir,
      // The example company issues the local invoices (the CDK stack sets the operator's, infra/issuer.ts).
      ...exampleIssuer(),
      // The function log file keeps INFO and above (LOG_LEVEL only sets what the terminal shows).
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'INFO',
      DEPLOYMENT_ENV: 'local',
      LOCAL_LOG_FILE: logFile,
      // Several invocations run at once in this process, each in its own context (infra/local/lambda.ts).
      AWS_LAMBDA_MAX_CONCURRENCY: process.env.AWS_LAMBDA_MAX_CONCURRENCY ?? '64',
      // No X-Ray daemon here: tracing stays off, and the X-Ray SDK in manual mode installs no async hook.
      POWERTOOLS_TRACE_ENABLED: 'false',
      AWS_XRAY_MANUAL_MODE: 'true',
      AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
    };
    for (const t of Object.values(TABLES)) env[t.envVar] = t.name;
    for (const [k, q] of Object.entries(QUEUES)) {
      env[q.envVar] = queues[k]!.url;
      env[`${q.envVar}_ARN`] = queues[k]!.arn;
      env[`${q.envVar}_DLQ`] = queues[k]!.dlqUrl;
    }
    for (const b of Object.values(BUCKETS)) env[b.envVar] = b.name;
    // Handlers run in this process: they read the same variables the CDK sets in AWS.
    Object.assign(process.env, env);

    // Nothing of a previous run survives a restart: before anything consumes (scheduler, queue pollers, cron,
    // the API), re-drive what a crash left behind (events not fanned out, attempts claimed by a worker that
    // died, with no grace; the sandbox clock advances it was playing) and finish the settlements it issued
    // without their documents (an SQS queue would have redelivered the job; the local queue lives in memory).
    // (As the functions' work: their logs and metrics go to the function log file.)
    // (As the functions that do it in AWS: the sweeper job, and the settlement consumer a redelivery would run.)
    const recovered = await withinInvocation(`boot-recovery-${bootedAt.getTime()}`, async () => {
      const { sweep } = await import('../../shared/webhooks/sweep');
      const sweeper = JOBS.find((j) => j.id === 'webhookSweeper')!.handler;
      const swept = await runAs(functionPrincipal(sweeper), () => sweep(new Date(), 0, { releaseClaims: true, claimedBefore: bootedAt }));
      // A sandbox clock advance whose worker died with the run (its message lived in the local queue) goes on from
      // where it stands, as the sweeper resumes one idle for 2 minutes in AWS.
      const { resumeIdleAdvances } = await import('../../shared/clock/advance');
      const advances = await runAs(functionPrincipal(sweeper), () => resumeIdleAdvances(bootedAt));
      const { completeIssuedSettlements } = await import('../../shared/settlements/recover');
      const settled = await runAs(functionPrincipal(QUEUES.settlements!.consumer), () => completeIssuedSettlements());
      // A state directory from before the list rows gets them, as the operator's data:list-rows would (nothing to do after that).
      const { moveListsToRows } = await import('../../shared/migrations/list-rows');
      const listRows = await runAs('operator', () => moveListsToRows());
      // And the rows of the partners' own reviews (GET /reviews?posted_by_you=true), as data:own-reviews would.
      const { addOwnReviewRows } = await import('../../shared/migrations/own-reviews');
      const ownReviews = await runAs('operator', () => addOwnReviewRows());
      return { ...swept, advances, settlements: settled.length, listRows, ownReviews };
    });

    const scheduler = await startScheduler({
      port: schedPort,
      file: join(stateDir, 'schedules.json'),
      // The group the CDK creates for the retries: as in AWS, a schedule in any other is refused.
      groups: [env.SCHEDULER_GROUP!],
      sqs,
      queueUrlForArn: (arn) => Object.values(queues).find((q) => q.arn === arn)?.url,
      log,
    });
    stops.push(scheduler.stop);
    for (const [k, q] of Object.entries(QUEUES)) {
      for (let i = 0; i < (q.localConcurrency ?? 1); i++) {
        const target = {
          queueUrl: queues[k]!.url,
          queueArn: queues[k]!.arn,
          consumer: q.consumer,
          batchSize: q.batchSize,
          timeoutMs: q.consumerTimeoutSeconds * 1000,
        };
        const p = startPoller(sqs, target, log, (url) => queueGone([url]));
        stops.push(p.stop);
      }
    }
    // Lambda's asynchronous invocation (retries, on-failure queues), for what EventBridge and CloudWatch Logs invoke;
    // stopped after them (it waits for the attempts under way), and then the log deliveries' checkpoint is final.
    let logsSettled: () => Promise<void> = async () => undefined;
    stops.push(() => logsSettled());
    const invoker = startAsyncInvoker({ sqs, settings: asyncSettingsOf(iam.model, onFailure), log, waitScale: asyncWaitScale() });
    stops.push(invoker.stop);
    const cron = startCron(JOBS, invoker, log, verboseLevel(process.env.LOG_LEVEL)); // the terminal's level: quiet at the default WARN
    stops.push(cron.stop);
    // CloudWatch Logs' subscription filters: the request log lines of the route functions reach its consumer as in AWS.
    const subscriptions = startLogSubscriptions({ file: logFile, subscriptions: subscriptionsOf(iam.model), invoker, allows: iam.allows, log });
    stops.push(subscriptions.stop);
    logsSettled = subscriptions.settled;

    // Ready means ready: the API listens (and /v1/health answers) once every route can be served.
    await opts.beforeListen?.();
    env.REFERENCE_HTML = await referenceP;
    process.env.REFERENCE_HTML = env.REFERENCE_HTML;
    env.GUIDES_DIR = guides.dir;
    process.env.GUIDES_DIR = guides.dir;
    const baseUrl = `${origin}/v1`;
    // The console calls the API, Cognito and S3 (a large document's presigned link) across origins, as in AWS.
    consoleH.open(
      {
        apiBaseUrl: baseUrl,
        cognito: { region: LOCAL_CREDENTIALS.AWS_REGION, userPoolId: cognito.userPoolId, clientId: cognito.clientId, endpoint: `${cognitoH.endpoint}/` },
      },
      { api: origin, cognito: new URL(cognitoH.endpoint).origin, documents: s3H.endpoint },
    );
    const api: Server = await startApiGateway(opts.port, '127.0.0.1', { beside: [cognito.handle], corsOrigin: consoleH.origin });
    stops.push(() => closeServer(api));
    const runtime: RuntimeInfo = {
      pid: process.pid,
      javaPid: dynamoH.process.pid,
      entry: lock.entry,
      port: opts.port,
      baseUrl,
      consoleUrl: consoleH.url,
      stateDir,
      env,
    };
    writeFileSync(runtimeFile(stateDir, opts.port), JSON.stringify(runtime, null, 2));
    return { baseUrl, consoleUrl: consoleH.url, runtime, queues, recovered, stop: stopAll };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
