import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { ROOT } from './lambda';

// How a process finds a running local stack (its runtime file), apart from the stack itself: the admin
// CLI and other scripts read it without loading the stack's servers and handlers.

export interface RuntimeInfo {
  pid: number;
  javaPid?: number;
  /** The script the stack's process runs (infra/local/start.ts for `npm start`): how a reused PID is told apart. */
  entry?: string;
  port: number;
  baseUrl: string;
  /** The console's address, on its own origin (http://127.0.0.1:<console port>/console/). */
  consoleUrl: string;
  stateDir: string;
  /** Environment a process needs to act on this stack (the admin CLI applies it). */
  env: Record<string, string>;
}

export function defaultStateDir(): string {
  const dir = process.env.LOCAL_STATE_DIR ?? '.local';
  return isAbsolute(dir) ? dir : resolve(ROOT, dir);
}

export const runtimeFile = (stateDir: string, port: number) => join(stateDir, `runtime-${port}.json`);

export function readRuntime(stateDir: string, port: number): RuntimeInfo | undefined {
  const f = runtimeFile(stateDir, port);
  if (!existsSync(f)) return undefined;
  const info = JSON.parse(readFileSync(f, 'utf8')) as RuntimeInfo;
  try {
    process.kill(info.pid, 0);
    return info;
  } catch {
    return undefined;
  }
}

/** Every local stack running with this state directory, whatever its port. */
export function runningStacks(stateDir: string): RuntimeInfo[] {
  if (!existsSync(stateDir)) return [];
  return readdirSync(stateDir)
    .map((f) => /^runtime-(\d+)\.json$/.exec(f)?.[1])
    .filter((port): port is string => port !== undefined)
    .flatMap((port) => readRuntime(stateDir, Number(port)) ?? []);
}
