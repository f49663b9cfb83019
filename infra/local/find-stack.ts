import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type DemoPartner, demoPartnerFile } from './demo';
import { defaultStateDir, type RuntimeInfo, readRuntime, runningStacks } from './runtime-info';

/**
 * How every script finds the local stack it acts on (the admin CLI, metrics:summary,
 * the SDK quickstart): the stack started with the same LOCAL_STATE_DIR (default
 * .local) and, when PORT is set, on that port; without PORT, the one stack running
 * with that state directory. Each stack writes `runtime-<PORT>.json` there.
 */

/** Several stacks run with this state directory and PORT does not say which (a usage error). */
export class WhichStackError extends Error {}

/** No local stack runs where the script looks (its message says how to start one). */
export class NoLocalStackError extends Error {}

function severalRunning(stateDir: string, stacks: RuntimeInfo[]): WhichStackError {
  const list = stacks.map((s) => `  PORT=${s.port}  ${s.baseUrl}  (pid ${s.pid})`).join('\n');
  return new WhichStackError(`${stacks.length} local stacks are running with state in ${stateDir}; say which one with PORT:\n${list}`);
}

/**
 * The running local stack, or an error that says how to start it; `otherwise`
 * ends that message with what else the caller could do (ADMIN_TARGET=aws, PTBS_BASE_URL).
 */
export function findRunningStack(otherwise?: string): RuntimeInfo {
  const stateDir = defaultStateDir();
  const or = otherwise ? `, or ${otherwise}` : '';
  if (process.env.PORT) {
    const runtime = readRuntime(stateDir, Number(process.env.PORT));
    if (runtime) return runtime;
    throw new NoLocalStackError(
      `no local stack is running on port ${process.env.PORT} with state in ${stateDir}: start it with 'npm start' (same PORT and LOCAL_STATE_DIR)${or}`,
    );
  }
  const stacks = runningStacks(stateDir);
  if (stacks.length === 1) return stacks[0]!;
  if (stacks.length > 1) throw severalRunning(stateDir, stacks);
  throw new NoLocalStackError(`no local stack is running with state in ${stateDir}: start it with 'npm start'${or}`);
}

/**
 * The port whose files (logs) a command reads, running or not: PORT; else the one
 * stack running; else the port of the newest function log in the state directory
 * (the last stack that ran); else 3000.
 */
export function lastStackPort(): { stateDir: string; port: number; runtime?: RuntimeInfo } {
  const stateDir = defaultStateDir();
  if (process.env.PORT) {
    const port = Number(process.env.PORT);
    return { stateDir, port, runtime: readRuntime(stateDir, port) };
  }
  const stacks = runningStacks(stateDir);
  if (stacks.length > 1) throw severalRunning(stateDir, stacks);
  if (stacks.length === 1) return { stateDir, port: stacks[0]!.port, runtime: stacks[0] };
  const logs = join(stateDir, 'logs');
  const newest = existsSync(logs)
    ? readdirSync(logs)
        .flatMap((f) => {
          const port = /^lambda-(\d+)\.jsonl$/.exec(f)?.[1];
          return port ? [{ port: Number(port), mtime: statSync(join(logs, f)).mtimeMs }] : [];
        })
        .sort((a, b) => b.mtime - a.mtime)[0]
    : undefined;
  return { stateDir, port: newest?.port ?? 3000 };
}

/** The demo partner `npm start` created in this stack's state directory (its keys are kept there). */
export function demoPartnerOf(runtime: Pick<RuntimeInfo, 'stateDir'>): DemoPartner {
  const file = demoPartnerFile(runtime.stateDir);
  if (!existsSync(file))
    throw new NoLocalStackError(`the local stack with state in ${runtime.stateDir} has no demo partner yet: it is created when npm start is ready`);
  return JSON.parse(readFileSync(file, 'utf8')) as DemoPartner;
}
