import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LAMBDA_NODE_MODULES } from '../../infra/constructs/esbuild-cjs';
import { lambdaPlatformPackages, platformPackagesCheck } from '../../infra/lambda-packages';

const ROOT = resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'ptbs-lambda-pkgs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the Lambda platform's native binaries", () => {
  const packages = lambdaPlatformPackages(join(ROOT, 'package-lock.json'), LAMBDA_NODE_MODULES);

  it("are sharp's linux-arm64 builds (glibc) at the lock file's versions, with its integrity, and no other platform's", () => {
    const sharp = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'sharp', 'package.json'), 'utf8')) as { optionalDependencies: Record<string, string> };
    expect(packages.map((p) => p.name).sort()).toEqual(['@img/sharp-libvips-linux-arm64', '@img/sharp-linux-arm64']);
    for (const p of packages) {
      expect(p.version, p.name).toBe(sharp.optionalDependencies[p.name]);
      expect(p.integrity, p.name).toMatch(/^sha512-/);
    }
  });

  it('stop the bundling, saying how to fetch them, when npm left them out (it skips an optional package it cannot fetch)', () => {
    const out = join(dir, 'asset');
    const check = () => spawnSync('sh', ['-c', platformPackagesCheck(out, packages)], { encoding: 'utf8' });
    const missing = check();
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('@img/sharp-linux-arm64@');
    expect(missing.stderr).toContain('@img/sharp-libvips-linux-arm64@');
    expect(missing.stderr).toContain('npm run -s lambda-packages');
    // Installed: the bundling goes on.
    for (const p of packages) {
      mkdirSync(join(out, 'node_modules', p.name), { recursive: true });
      writeFileSync(join(out, 'node_modules', p.name, 'package.json'), '{}');
    }
    expect(check().status).toBe(0);
  });
});
