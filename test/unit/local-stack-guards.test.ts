import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { lockFile, reapStale, runtimeFile } from '../../infra/local/stack';

const dirs: string[] = [];
const children: ChildProcess[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'ptbs-guards-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A live process that is not a local stack: what a PID left in a runtime file can be once the OS reused it. */
function otherProcess(): number {
  const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  children.push(c);
  return c.pid!;
}

/** A live process whose command line is the stack's (`node ... infra/local/start.ts`), without booting one. */
function stackLikeProcess(): number {
  const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)', 'infra/local/start.ts'], { stdio: 'ignore' });
  children.push(c);
  return c.pid!;
}

describe('a state directory left by a stack', () => {
  it('a PID reused by another process is not taken for a running stack: its files are cleaned up and the start goes on', () => {
    const dir = tempDir();
    const pid = otherProcess();
    writeFileSync(runtimeFile(dir, 3999), JSON.stringify({ pid, javaPid: pid, port: 3999, baseUrl: 'http://127.0.0.1:3999/v1', stateDir: dir, env: {} }));
    writeFileSync(lockFile(dir), JSON.stringify({ pid, javaPid: pid, port: 3999, entry: 'infra/local/start.ts', started_at: new Date().toISOString() }));
    expect(() => reapStale(dir, 3999)).not.toThrow();
    expect(existsSync(runtimeFile(dir, 3999))).toBe(false);
    expect(existsSync(lockFile(dir))).toBe(false);
    // Not a DynamoDB Local either: left alone.
    expect(() => process.kill(pid, 0)).not.toThrow();
  });

  it('a live stack on another port refuses the start, naming its pid, port and base URL', () => {
    const dir = tempDir();
    const pid = stackLikeProcess();
    writeFileSync(lockFile(dir), JSON.stringify({ pid, port: 4001, entry: 'infra/local/start.ts', started_at: new Date().toISOString() }));
    expect(() => reapStale(dir, 4002)).toThrow(`a local stack (pid ${pid}, port 4001, http://127.0.0.1:4001/v1) is already running with state in ${dir}`);
    expect(existsSync(lockFile(dir))).toBe(true);
  });

  it('a runtime file of a live stack (written before the lock existed) refuses the start on its port', () => {
    const dir = tempDir();
    const pid = stackLikeProcess();
    writeFileSync(runtimeFile(dir, 4003), JSON.stringify({ pid, port: 4003, baseUrl: 'http://127.0.0.1:4003/v1', stateDir: dir, env: {} }));
    expect(() => reapStale(dir, 4003)).toThrow(`(pid ${pid}, port 4003`);
  });
});
