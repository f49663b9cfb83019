import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUCKETS } from '../../../shared/buckets';
import { TABLES } from '../../../shared/db/tables';
import { QUEUES } from '../../../shared/queues';
import { LOCAL_CONFIGURATION_SET } from '../../mail-address';
import type { LocalQueue, ProvisionedQueue } from '../provision';
import { type Enforcement, enforceIam } from './enforce';
import { buildIamModel, type IamModel, LOCAL_ACCOUNT, LOCAL_REGION, type LocalResource } from './model';
import { queueArnOfUrl } from './requests';
import { loadTemplates, type SynthesizedStack } from './templates';

/** `LOCAL_IAM=off` turns the layer off, for debugging only (docs/operations/local-stack.md). */
export const iamEnforced = () => (process.env.LOCAL_IAM ?? 'on') !== 'off';

export const userPoolArn = (userPoolId: string) => `arn:aws:cognito-idp:${LOCAL_REGION}:${LOCAL_ACCOUNT}:userpool/${userPoolId}`;

/** The local counterparts of the resources the constructs mark with LocalName (infra/constructs/local-names.ts). */
export function localResources(
  queues: Record<string, ProvisionedQueue>,
  userPoolId: string,
  onFailure: Record<string, LocalQueue>,
): Record<string, LocalResource> {
  const out: Record<string, LocalResource> = {};
  for (const t of Object.values(TABLES)) {
    out[`table:${t.name}`] = { ref: t.name, attrs: { Arn: `arn:aws:dynamodb:${LOCAL_REGION}:${LOCAL_ACCOUNT}:table/${t.name}` } };
  }
  for (const key of Object.keys(QUEUES)) {
    const q = queues[key]!;
    out[`queue:${key}`] = { ref: q.url, attrs: { Arn: queueArnOfUrl(q.url), QueueName: q.name, QueueUrl: q.url } };
    out[`dlq:${key}`] = { ref: q.dlqUrl, attrs: { Arn: queueArnOfUrl(q.dlqUrl), QueueUrl: q.dlqUrl } };
  }
  for (const [key, q] of Object.entries(onFailure)) out[`onFailure:${key}`] = { ref: q.url, attrs: { Arn: q.arn, QueueName: q.name, QueueUrl: q.url } };
  for (const [key, b] of Object.entries(BUCKETS)) out[`bucket:${key}`] = { ref: b.name, attrs: { Arn: `arn:aws:s3:::${b.name}` } };
  out.userPool = { ref: userPoolId, attrs: { Arn: userPoolArn(userPoolId) } };
  out.configurationSet = { ref: LOCAL_CONFIGURATION_SET, attrs: {} };
  return out;
}

/** The webhook worker's entry: the Scheduler's role and group are in its environment. */
const WORKER = `function:${QUEUES.webhooks!.consumer}`;

/**
 * Starts the IAM layer of the local stack: the model of the synthesized templates (their policies, resolved to
 * the local resources), enforced on every AWS call made by a principal, with the denies and the usage recorded
 * under the state directory's iam/. `environment`: what the functions' environment holds in the templates that
 * the local runtime cannot know otherwise (the Scheduler's role and group).
 */
export async function startIam(opts: {
  prepared: Promise<SynthesizedStack[] | undefined>;
  stateDir: string;
  queues: Record<string, ProvisionedQueue>;
  /** The on-failure queues of the asynchronously invoked functions, by key. */
  onFailure: Record<string, LocalQueue>;
  userPoolId: string;
  log: (line: string) => void;
}): Promise<{ model?: IamModel; environment: Record<string, string>; allows?: Enforcement['allows']; stop(): Promise<void> }> {
  const templates = await opts.prepared;
  if (!templates) {
    opts.log('IAM is not enforced on this local stack (LOCAL_IAM=off): calls AWS would refuse succeed here.');
    return { environment: {}, stop: async () => undefined };
  }
  const model = buildIamModel(templates, localResources(opts.queues, opts.userPoolId, opts.onFailure));
  const enforcement = enforceIam(model, join(opts.stateDir, 'iam'), opts.log);
  // For the run's report (infra/local/iam/report.ts) and the admin CLI, which enforces the same model.
  writeFileSync(join(opts.stateDir, 'iam', 'model.json'), JSON.stringify(model));
  const worker = model.environments[WORKER] ?? {};
  const environment = Object.fromEntries(
    ['SCHEDULER_ROLE_ARN', 'SCHEDULER_GROUP'].flatMap((k) => (typeof worker[k] === 'string' ? [[k, worker[k] as string]] : [])),
  );
  // The usage is written now and then (a stack killed without cleanup leaves its last figures) and at the stop.
  const timer = setInterval(enforcement.flush, 10_000);
  timer.unref();
  return {
    model,
    environment,
    allows: enforcement.allows,
    stop: async () => {
      clearInterval(timer);
      enforcement.flush();
    },
  };
}

/** Synthesizes (or reads from the cache) the templates, unless the layer is off. */
startIam.prepare = async (): Promise<SynthesizedStack[] | undefined> => (iamEnforced() ? loadTemplates() : undefined);

/**
 * The admin CLI against the local stack acts as an operator: its calls are authorized against the operators'
 * managed policy of the templates (infra/constructs/operators.ts), from the model the stack wrote at its start
 * (none when the stack runs with LOCAL_IAM=off). Returns whether IAM is enforced.
 */
export function enforceForOperator(stateDir: string): boolean {
  // Once per process: a process that runs several commands (the tests' long-lived CLI) keeps one enforcement.
  const known = operatorEnforcement.get(stateDir);
  if (known !== undefined) return known;
  const enforced = enforceOperatorPolicy(stateDir);
  operatorEnforcement.set(stateDir, enforced);
  return enforced;
}
const operatorEnforcement = new Map<string, boolean>();

function enforceOperatorPolicy(stateDir: string): boolean {
  const file = join(stateDir, 'iam', 'model.json');
  if (!existsSync(file)) return false;
  const model = JSON.parse(readFileSync(file, 'utf8')) as IamModel;
  if (!model.roles.operator) {
    console.error("The running local stack was started from templates without the operators' policy: restart it (npm start) to check the CLI's calls.");
    return false;
  }
  const enforcement = enforceIam(model, join(stateDir, 'iam'), (line) => console.error(line));
  process.once('exit', enforcement.flush);
  return true;
}
