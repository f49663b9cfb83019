import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

it('npm start without Java prints one line saying what to install and exits non-zero', () => {
  const root = resolve(import.meta.dirname, '..', '..');
  const state = mkdtempSync(join(tmpdir(), 'ptbs-nojava-'));
  // An empty PATH: node is started by absolute path, `java` cannot be found.
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    cwd: root,
    env: { ...process.env, PATH: state, LOCAL_STATE_DIR: state, PORT: '0' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  rmSync(state, { recursive: true, force: true });
  expect(r.status).toBe(1);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/Java 17\+ is required .*install/);
}, 30_000);

it('npm start on a port already in use says so in one line, naming PORT, before booting anything', async () => {
  const root = resolve(import.meta.dirname, '..', '..');
  const state = mkdtempSync(join(tmpdir(), 'ptbs-port-'));
  const holder = createServer();
  await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
  const port = (holder.address() as AddressInfo).port;
  try {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
      cwd: root,
      env: { ...process.env, LOCAL_STATE_DIR: state, PORT: String(port) },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      `Port ${port} is already in use (another npm start, or another program): stop it, or start on another port with PORT=<port> npm start.`,
    ]);
    // Nothing was booted: no catalog import, no DynamoDB Local in the state directory.
    expect(r.stdout).not.toContain('Importing the catalog');
    expect(readdirSync(state)).toEqual([]);
  } finally {
    holder.close();
    rmSync(state, { recursive: true, force: true });
  }
}, 30_000);
