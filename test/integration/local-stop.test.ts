import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/services';
import { listeningSockets } from './sockets';

/**
 * `npm start` stops when its own PID is signalled, as a process manager, an IDE's stop button or `kill $!` in a
 * script signal it (not the terminal's Ctrl-C, which signals the whole process group). The stack is started with
 * `npm start` itself (its prerequisites step included) on a state directory of its own.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const stateDir = mkdtempSync(join(tmpdir(), 'ptbs-stop-'));
/** Every process a start left, to end by PID if the test failed before the stack stopped. */
const started = new Set<number>();

afterAll(() => {
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(stateDir, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Every descendant of `pid`, from `ps`. */
function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  const out: number[] = [];
  const frontier = [pid];
  while (frontier.length) {
    const parent = frontier.pop()!;
    for (const [child, ppid] of rows)
      if (ppid === parent) {
        out.push(child);
        frontier.push(child);
      }
  }
  return out;
}

const accepts = (port: number) =>
  new Promise<boolean>((r) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      r(true);
    });
    s.once('error', () => r(false));
  });

async function npmStart(port: number): Promise<{ npm: ChildProcess; output: () => string }> {
  const spawned = Date.now();
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LOCAL_STATE_DIR: stateDir, LOCAL_CATALOG_ADVENTURES: '12' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(npm.pid!);
  let out = '';
  npm.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  npm.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  // The prerequisites step (and a console build when its sources changed) comes first: a loaded machine takes minutes.
  const deadline = Date.now() + 240_000;
  while (!out.includes('Ready in')) {
    if (Date.now() > deadline || npm.exitCode !== null) throw new Error(`npm start did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // "Ready in" counts from the command's start, the prerequisites step included: short of what the caller waited by
  // npm's own start and this loop's poll only (0.2 s at a load of 11; 2.3 s and 3.0 s short before it counted so).
  const waited = Date.now() - spawned;
  const ready = Number(/Ready in ([\d.]+) s/.exec(out)![1]) * 1000;
  console.log(`npm start: Ready in ${ready} ms printed, ${waited} ms from npm's spawn`);
  expect(ready).toBeGreaterThan(waited - 1_500);
  expect(ready).toBeLessThanOrEqual(waited);
  return { npm, output: () => out };
}

/** Sends `signal` to npm's PID; how long until npm, every process under it and every port they listened on are gone. */
async function stopBy(signal: NodeJS.Signals) {
  const port = await freePort();
  const { npm, output } = await npmStart(port);
  const children = descendants(npm.pid!);
  for (const pid of children) started.add(pid);
  const ports = [...new Set(children.flatMap((pid) => listeningSockets(pid).map((s) => s.port)))];
  // The stack's node and DynamoDB Local's java, listening on the API's, the console's and every local server's port.
  expect(children.length).toBeGreaterThanOrEqual(2);
  expect(ports).toContain(port);
  expect(ports.length).toBeGreaterThanOrEqual(8);
  for (const p of ports) expect(await accepts(p), `port ${p} before the signal`).toBe(true);

  const sent = Date.now();
  process.kill(npm.pid!, signal);
  const deadline = sent + 20_000;
  let left = { processes: [npm.pid!, ...children], ports };
  while (Date.now() < deadline) {
    const open = [];
    for (const p of ports) if (await accepts(p)) open.push(p);
    left = { processes: [npm.pid!, ...children].filter(alive), ports: open };
    if (left.processes.length === 0 && left.ports.length === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const ms = Date.now() - sent;
  console.log(`npm start stopped by ${signal} to npm's PID in ${ms} ms (${children.length} processes, ${ports.length} ports)`);
  expect(left, `still there ${ms} ms after ${signal}:\n${output().slice(-2000)}`).toEqual({ processes: [], ports: [] });
  expect(output()).toContain(`${signal}: stopping the local stack...`);
  return ms;
}

describe('npm start', () => {
  it('SIGTERM, then SIGINT, sent to the PID of npm start stop the whole stack within seconds: every port closed, every child gone', async () => {
    expect(await stopBy('SIGTERM')).toBeLessThan(15_000);
    // Again on the same state directory: the restart's stack, stopped by SIGINT.
    expect(await stopBy('SIGINT')).toBeLessThan(15_000);
  }, 600_000);
});
