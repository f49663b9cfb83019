import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REHEARSAL_REGIONS_VAR } from '../infra/rehearsal/regions';
import { CONTROLS_BEGIN, CONTROLS_END, checkAssembly, controlsSection, formatRehearsal, type Rehearsal } from '../infra/rehearsal/rehearse';

/**
 * The deploy pipeline, one for `npm run deploy`, `npm run deploy:mail` and `npm run rehearse`:
 *
 *   1. the console's build (scripts/prerequisites.ts console);
 *   2. `cdk synth` of the whole app with the deploy's context checks (requireIssuer, requireMail,
 *      requireOncall), bound to the account and region the CDK CLI finds, cdk-nag on, into an assembly;
 *   3. the assembly checked as CloudFormation and the services would at create time (infra/rehearsal);
 *   4. `cdk deploy --app <assembly>`: the first call to AWS that changes anything.
 *
 * `rehearse` runs steps 1 to 3 as a deploying team would, with specimen settings and a specimen account in two
 * regions near the partners, offline, and stops before step 4. `npm test` runs it.
 *
 *   node --import tsx scripts/deploy.ts deploy|deploy:mail [-c key=value ...] [cdk deploy options]
 *   node --import tsx scripts/deploy.ts rehearse [--region R ...] [--update-docs]
 */

const ROOT = resolve(import.meta.dirname, '..');
const CDK = join(ROOT, 'node_modules', '.bin', 'cdk');

/** What each command deploys, and the context that makes the app refuse a deployment's missing settings. */
export const PIPELINES = {
  deploy: { stacks: ['--all'], context: { requireIssuer: 'true', requireMail: 'true', requireOncall: 'true' } },
  'deploy:mail': { stacks: ['*Mail'], context: { requireMail: 'true' } },
} as const;
export type Pipeline = keyof typeof PIPELINES;

/** The rehearsal's deploying team: a specimen account, two regions near the partners, specimen settings. */
export const REHEARSAL = {
  account: '111122223333',
  regions: ['eu-west-3', 'eu-west-1'],
  context: { mailFrom: 'bookings@travel.yourbank.ma', operatorsEmail: 'ops@yourbank.ma', oncallEmail: 'oncall@yourbank.ma' },
  /** The example issuer, which a staging stack may deploy with (its invoices say SPECIMEN). */
  env: { ALLOW_SPECIMEN_ISSUER: '1' },
};

/** The user's arguments: context (-c k=v) goes to the synth, the rest to `cdk deploy`; a profile to both. */
export function splitArguments(args: string[]): { synth: string[]; deploy: string[] } {
  const synth: string[] = [];
  const deploy: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-c' || a === '--context' || a === '--profile') {
      const pair = [a, args[++i] ?? ''];
      synth.push(...pair);
      if (a === '--profile') deploy.push(...pair);
    } else if (a.startsWith('--context=') || a.startsWith('--profile=')) {
      synth.push(a);
      if (a.startsWith('--profile=')) deploy.push(a);
    } else deploy.push(a);
  }
  return { synth, deploy };
}

/** The command lines of a pipeline, steps 2 and 4, as the CDK CLI gets them. */
export function commandLines(pipeline: Pipeline, args: string[], out: string): { synth: string[]; deploy: string[] } {
  const p = PIPELINES[pipeline];
  const user = splitArguments(args);
  const context = Object.entries(p.context).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  return {
    // The whole app is synthesized and checked even for one stack: `cdk deploy '*Mail'` synthesizes it all too.
    synth: ['synth', '--all', '--quiet', '--output', out, ...context, ...user.synth],
    deploy: ['deploy', '--app', out, ...p.stacks, ...user.deploy],
  };
}

function buildConsole(): boolean {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/prerequisites.ts', 'console'], { cwd: ROOT, stdio: 'inherit' }).status === 0;
}

/** Runs the CDK CLI; its output is shown as it comes (deploy) or kept and shown on failure (rehearsal). */
function cdk(args: string[], env: NodeJS.ProcessEnv, quiet: boolean): Promise<{ ok: boolean; output: string }> {
  return new Promise((done) => {
    const child = spawn(CDK, args, { cwd: ROOT, env, stdio: ['ignore', quiet ? 'pipe' : 'inherit', quiet ? 'pipe' : 'inherit'] });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (e) => done({ ok: false, output: `${output}${e.message}\n` }));
    child.on('close', (code) => done({ ok: code === 0, output }));
  });
}

/** The synthesizer's and cdk-nag's messages worth showing from a successful synth: its warnings. */
const synthWarnings = (output: string) =>
  output
    .split('\n')
    .filter((l) => /^\[?WARNING|^ERROR/.test(l) && !/is deprecated/.test(l))
    .map((l) => `  ${l}`);

async function deploy(pipeline: Pipeline, args: string[]): Promise<number> {
  if (!buildConsole()) return 1;
  const out = join(ROOT, 'cdk.out');
  const lines = commandLines(pipeline, args, out);
  process.stderr.write(`cdk ${lines.synth.join(' ')}\n`);
  const synth = await cdk(lines.synth, process.env, false);
  if (!synth.ok) return 1;
  const r = checkAssembly(out);
  process.stderr.write(`${formatRehearsal(r)}\n`);
  if (r.errors.length) {
    process.stderr.write(`\nNot deployed: ${r.errors.length} error(s) above would fail or roll back the deploy.\n`);
    return 1;
  }
  process.stderr.write(`cdk ${lines.deploy.join(' ')}\n`);
  return (await cdk(lines.deploy, process.env, false)).ok ? 0 : 1;
}

/** An environment with no AWS credentials or configuration: the CLI binds the specimen account, not the machine's. */
function rehearsalEnv(region: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(AWS_|CDK_DEFAULT_)/.test(k)));
  return {
    ...env,
    ...REHEARSAL.env,
    AWS_REGION: region,
    CDK_DEFAULT_ACCOUNT: REHEARSAL.account,
    AWS_CONFIG_FILE: '/nonexistent/aws-config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws-credentials',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

async function rehearse(args: string[]): Promise<number> {
  const regions = args.flatMap((a, i) => (args[i - 1] === '--region' ? [a] : []));
  const update = args.includes('--update-docs');
  if (args.some((a, i) => a !== '--update-docs' && a !== '--region' && args[i - 1] !== '--region')) {
    process.stderr.write('usage: npm run rehearse [-- --region R ...] [--update-docs]\n');
    return 2;
  }
  if (!buildConsole()) return 1;
  const started = Date.now();
  const targets = regions.length ? regions : REHEARSAL.regions;
  const context = Object.entries(REHEARSAL.context).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  process.stderr.write(
    `Rehearsing npm run deploy for account ${REHEARSAL.account} in ${targets.join(' and ')} (the synth bundles every function once: a minute or two)...\n`,
  );
  const outs = targets.map((region) => ({ region, out: join(ROOT, '.local', 'rehearsal', region) }));
  for (const { out } of outs) rmSync(out, { recursive: true, force: true });
  // One synth: the CLI's, bound to the first region as npm run deploy binds its own; the app synthesizes the
  // other regions first in the same process (infra/app.ts, synthOtherRegions), so each asset is bundled once.
  const [first, ...others] = outs as [(typeof outs)[0], ...typeof outs];
  const lines = commandLines('deploy', context, first.out);
  const env = { ...rehearsalEnv(first.region), [REHEARSAL_REGIONS_VAR]: JSON.stringify(Object.fromEntries(others.map((o) => [o.region, o.out]))) };
  const synth = await cdk(lines.synth, env, true);
  if (!synth.ok) {
    process.stderr.write(`\n${first.region}: cdk ${lines.synth.join(' ')} failed (${targets.join(', ')}):\n${synth.output}\n`);
    return 1;
  }
  process.stderr.write(`\n${[`cdk ${lines.synth.join(' ')}`, ...new Set(synthWarnings(synth.output))].join('\n')}\n`);
  let failed = 0;
  const rehearsals: Rehearsal[] = [];
  for (const { region, out } of outs) {
    const r = checkAssembly(out);
    rehearsals.push(r);
    process.stderr.write(`\n${formatRehearsal(r)}\n`);
    if (r.region !== region) process.stderr.write(`  FAIL the assembly in ${out} is bound to ${r.region}, not ${region}\n`);
    process.stderr.write(`  then: cdk ${commandLines('deploy', context, out).deploy.join(' ')} (not run: the rehearsal stops before the first call to AWS)\n`);
    if (r.errors.length || r.region !== region) failed++;
  }
  if (rehearsals[0] && !failed) failed += checkDocs(rehearsals[0], update);
  const seconds = Math.round((Date.now() - started) / 1000);
  process.stderr.write(`\nrehearsal ${failed ? 'FAILED' : 'passed'} for ${targets.join(', ')} in ${seconds} s\n`);
  return failed ? 1 : 0;
}

const DEPLOYING = join(ROOT, 'docs', 'operations', 'deploying.md');

/** docs/operations/deploying.md shows the controls this rehearsal found: rewritten with --update-docs, else compared. */
function checkDocs(r: Rehearsal, update: boolean): number {
  const doc = readFileSync(DEPLOYING, 'utf8');
  const [from, to] = [doc.indexOf(CONTROLS_BEGIN), doc.indexOf(CONTROLS_END)];
  if (from < 0 || to < 0) {
    process.stderr.write(`${DEPLOYING} has no ${CONTROLS_BEGIN} ... ${CONTROLS_END} section for the controls\n`);
    return 1;
  }
  const current = doc.slice(from, to + CONTROLS_END.length);
  const wanted = controlsSection(r);
  if (current === wanted) return 0;
  if (update) {
    writeFileSync(DEPLOYING, doc.replace(current, wanted));
    process.stderr.write(`Updated the controls of ${DEPLOYING}.\n`);
    return 0;
  }
  process.stderr.write(`The controls in ${DEPLOYING} are not this rehearsal's: run npm run rehearse -- --update-docs, and commit the page.\n`);
  return 1;
}

if (process.argv[1] && /deploy\.ts$/.test(process.argv[1])) {
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'rehearse') process.exitCode = await rehearse(rest);
  else if (command === 'deploy' || command === 'deploy:mail') process.exitCode = await deploy(command, rest);
  else {
    process.stderr.write('usage: node --import tsx scripts/deploy.ts deploy|deploy:mail|rehearse [arguments]\n');
    process.exitCode = 2;
  }
}
