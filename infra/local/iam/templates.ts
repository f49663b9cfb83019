import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { appContext } from '../../feature-flags';
import { localMailContext } from '../../mail-address';

/** A CloudFormation template, as far as the IAM layer reads it. */
export interface CfnTemplate {
  Parameters?: Record<string, { Default?: unknown }>;
  Resources?: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown }>;
}
export interface CfnResource {
  Type: string;
  // biome-ignore lint/suspicious/noExplicitAny: template JSON, read by resource type.
  Properties?: Record<string, any>;
  Metadata?: Record<string, unknown>;
}

/** One synthesized stack; a nested stack names its parent and the AWS::CloudFormation::Stack resource that holds it. */
export interface SynthesizedStack {
  path: string;
  template: CfnTemplate;
  parent?: { path: string; logicalId: string };
}

const ROOT = join(import.meta.dirname, '..', '..', '..');
/** What the templates are made of: a change to any of these synthesizes again (the local runtime is not). */
const INPUTS = ['infra', 'shared', 'functions', 'cdk.json', 'package-lock.json'];
const SKIPPED = join(ROOT, 'infra', 'local');

function* files(path: string): Generator<string> {
  const s = statSync(path);
  if (path === SKIPPED) return;
  if (s.isFile()) yield path;
  else if (s.isDirectory()) for (const e of readdirSync(path).sort()) yield* files(join(path, e));
}

/** A hash of the sources the templates are synthesized from (and of the stack name and the local mail settings). */
export function sourcesHash(): string {
  const h = createHash('sha256')
    .update(process.env.STACK_NAME ?? '')
    .update(JSON.stringify(localMailContext()));
  for (const input of INPUTS) {
    const abs = join(ROOT, input);
    if (!existsSync(abs)) continue;
    for (const f of files(abs)) h.update(relative(ROOT, f)).update('\0').update(readFileSync(f)).update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

/**
 * Synthesizes the service as `cdk synth` does, with cdk.json's feature flags (they shape the policies: minimized,
 * partition literals), without bundling (the policies do not depend on the bundles) and without cdk-nag (its
 * findings are the infra tests' business), and returns every stack's template.
 */
export async function synthesizeTemplates(): Promise<SynthesizedStack[]> {
  const { App, NestedStack, Stack } = await import('aws-cdk-lib');
  const { ServiceStack } = await import('../../stack');
  // The local deployment's sender (MAIL_FROM), as a deploy's -c mailFrom. The deployment is named, not taken from
  // DEPLOYMENT_ENV: the local runtime sets that to 'local', which no CDK deployment is (no policy depends on it).
  const app = new App({ context: appContext({ 'aws:cdk:bundling-stacks': [], deployment: 'production', ...localMailContext() }) });
  const service = new ServiceStack(app, process.env.STACK_NAME ?? 'PartnerTravelService');
  const assembly = app.synth();
  const read = (file: string) => JSON.parse(readFileSync(join(assembly.directory, file), 'utf8')) as CfnTemplate;
  return service.node
    .findAll()
    .filter((c) => Stack.isStack(c))
    .map((s) => {
      const holder = NestedStack.isNestedStack(s) ? s.nestedStackResource : undefined;
      return {
        path: s.node.path,
        template: read(s.templateFile),
        ...(holder ? { parent: { path: Stack.of(holder).node.path, logicalId: Stack.of(holder).getLogicalId(holder as never) } } : {}),
      };
    });
}

/**
 * The synthesized templates, from a cache under node_modules/.cache when the sources have not changed since
 * (synthesizing takes several seconds). Synthesized in a child process: the CDK app loads the route table and
 * every construct, which the local runtime has no use for.
 */
export async function loadTemplates(cacheDir = join(ROOT, 'node_modules', '.cache', 'partner-travel-iam')): Promise<SynthesizedStack[]> {
  const file = join(cacheDir, `templates-${sourcesHash()}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as SynthesizedStack[];
  mkdirSync(cacheDir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'infra', 'local', 'iam', 'templates.ts'), tmp], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      // Not the local runtime's Lambda settings: the CDK app loads Powertools outside any invocation.
      env: Object.fromEntries(
        Object.entries({ ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }).filter(([k]) => k !== 'AWS_LAMBDA_MAX_CONCURRENCY'),
      ),
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`synthesizing the templates for the IAM layer failed (exit ${code}):\n${stderr}`)),
    );
  });
  renameSync(tmp, file);
  return JSON.parse(readFileSync(file, 'utf8')) as SynthesizedStack[];
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: templates.ts OUT.json');
  writeFileSync(out, JSON.stringify(await synthesizeTemplates()));
}
