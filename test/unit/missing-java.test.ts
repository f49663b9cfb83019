import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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
