import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { routeExpectations } from '../../infra/local/iam/expectations';
import { leastPrivilegeReport, readIamRun, unexpectedUnused, unusedGrants } from '../../infra/local/iam/report';
import { freePort } from '../../infra/local/services';
import { type LocalTls, makeLocalTls } from '../fixtures/local-tls';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    port: number;
    stateDir: string;
    demoTestKey: string;
    startupMs: number;
    /** The stack's index lag (LOCAL_GSI_LAG_MS), for tests that must wait it out. */
    gsiLagMs: number;
    /** Certificates for HTTPS receivers on `localhost`, signed by a CA the stack trusts. */
    tls: LocalTls;
  }
}

const ROOT = resolve(import.meta.dirname, '..', '..');
let child: ChildProcess | undefined;
let stateDir: string | undefined;
let tlsDir: string | undefined;
let integration: TestProject | undefined;

/** Boots the local stack exactly as `npm start` does, on a free port and a fresh state dir. */
export default async function setup(project: TestProject) {
  integration = project;
  const port = await freePort();
  stateDir = mkdtempSync(join(tmpdir(), 'ptbs-it-'));
  tlsDir = mkdtempSync(join(tmpdir(), 'ptbs-tls-'));
  const tls = makeLocalTls(tlsDir);
  const started = Date.now();
  const gsiLagMs = process.env.LOCAL_GSI_LAG_MS ?? '750';
  child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', '--reset'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      LOCAL_STATE_DIR: stateDir,
      WEBHOOK_WAIT_SCALE: process.env.WEBHOOK_WAIT_SCALE ?? '0.0001',
      FAULT_INJECTION: 'on',
      // Index reads lag their writes by 750 ms (AWS: usually under a second): no test may pass because an index is immediate.
      LOCAL_GSI_LAG_MS: gsiLagMs,
      // Trust the test CA as a developer trusts mkcert's: the stack verifies receivers' certificates as in AWS.
      NODE_EXTRA_CA_CERTS: tls.caFile,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const booting = new Promise<string>((resolveReady, reject) => {
    // Ready in 15-25 s on CI's quiet 2 cores (the IAM layer's first synth included); far longer on a loaded machine:
    // a guard against a hang, not a performance bound (own-stack.ts's BOOT_GUARD_MS).
    const timer = setTimeout(() => reject(new Error(`local stack not ready in 600 s:\n${out}`)), 600_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /Sandbox key\s+(sk_test_\S+)/.exec(out);
      if (m && out.includes('Ready in')) {
        clearTimeout(timer);
        resolveReady(m[1]!);
      }
    };
    child!.stdout!.on('data', onData);
    child!.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child!.once('exit', (code) => reject(new Error(`local stack exited with ${code}:\n${out}`)));
  });
  // A stack that failed to boot is stopped here: vitest runs no teardown after a failed setup, and an
  // orphaned stack (with its DynamoDB Local) would go on loading the machine.
  const ready = await booting.catch(async (e: unknown) => {
    await teardown();
    throw e;
  });
  project.provide('baseUrl', `http://127.0.0.1:${port}/v1`);
  project.provide('port', port);
  project.provide('stateDir', stateDir);
  project.provide('demoTestKey', ready);
  project.provide('startupMs', Date.now() - started);
  project.provide('tls', tls);
  project.provide('gsiLagMs', Number(gsiLagMs));
  return teardown;
}

async function teardown() {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  const iam = stateDir ? iamVerdict(stateDir, await partialRun()) : undefined;
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  if (tlsDir) rmSync(tlsDir, { recursive: true, force: true });
  if (iam) throw new Error(iam);
}

/**
 * Why this run cannot judge unused grants, if it cannot: only a run of every integration test, all passing, takes
 * every path the tests take (`npx vitest run --project integration x.test.ts` takes a few).
 */
async function partialRun(): Promise<string | undefined> {
  if (!integration) return 'no project';
  const { vitest } = integration;
  if (vitest.config.testNamePattern) return 'a test name filter';
  const all = (await integration.globTestFiles()).testFiles.length;
  const ran = vitest.state.getFiles().filter((f) => f.projectName === integration!.name);
  if (ran.length < all) return `${ran.length} of ${all} test files`;
  const failed = ran.filter((f) => f.result?.state === 'fail').length;
  return failed ? `${failed} test file(s) failed` : undefined;
}

/** Where the run's least-privilege report goes (docs/operations/permissions.md says how to publish it). */
export const LEAST_PRIVILEGE_REPORT = join(ROOT, '.local', 'least-privilege.md');

/**
 * The IAM layer's verdict on the run: the least-privilege report is written; any call the stack refused fails the
 * run (no test expects a deny from the stack: the layer's own tests run it in their process), and so does a grant
 * that a route the run called never used, unless its route accepts it as untested (infra/local/iam/expectations.ts).
 */
function iamVerdict(dir: string, partial: string | undefined): string | undefined {
  const { model, usage, denies, stats } = readIamRun(dir);
  const expected = routeExpectations();
  const failures: string[] = [];
  if (model) {
    mkdirSync(join(ROOT, '.local'), { recursive: true });
    writeFileSync(LEAST_PRIVILEGE_REPORT, leastPrivilegeReport(model, usage, denies, stats, expected));
    console.log(`Least-privilege report: ${LEAST_PRIVILEGE_REPORT}`);
    const unused = unexpectedUnused(unusedGrants(model, usage), expected);
    if (unused.length && partial) console.log(`Unused grants not checked: a partial run (${partial}) leaves paths untaken.`);
    if (unused.length && !partial) {
      failures.push(
        `Routes the run called were granted what they never used (docs/operations/permissions.md): remove it from the route's \`dynamo\`, or list it in its \`untested\` with the path that needs it.\n${unused
          .map((u) => `  ${u.label}:\n${u.lines.map((l) => `    ${l}`).join('\n')}`)
          .join('\n')}`,
      );
    }
  }
  if (denies.length) {
    const lines = denies.map((d) => `  ${d.principal}: ${d.action} on ${d.resource} ${JSON.stringify(d.context)} (${d.reason})`);
    failures.push(
      `The local stack refused ${denies.length} AWS call(s) as AWS would (infra/local/iam): grant what the function needs, least privilege.\n${[...new Set(lines)].join('\n')}`,
    );
  }
  return failures.length ? failures.join('\n') : undefined;
}
