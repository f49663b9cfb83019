import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Facts, javaMajor, plan } from '../../scripts/prerequisites';

const debianRoot: Facts = {
  javaMajor: 17,
  chromiumPath: '/usr/bin/chromium',
  chromium: true,
  openssl: true,
  javaCompiler: true,
  javaClientJars: [],
  python: 'python3',
  pythonCryptography: true,
  systemPython: true,
  curl: true,
  platform: 'linux',
  apt: true,
  debian: true,
  root: true,
  sudo: false,
  javaPackage: 'openjdk-17-jre-headless',
  jdkPackage: 'openjdk-17-jdk-headless',
  installAllowed: true,
};

describe('prerequisites of npm start and npm test', () => {
  it('reads the major version of java -version', () => {
    expect(javaMajor('openjdk version "17.0.15" 2025-04-15')).toBe(17);
    expect(javaMajor('openjdk version "21" 2023-09-19')).toBe(21);
    expect(javaMajor('java version "1.8.0_392"')).toBe(8);
    expect(javaMajor(null)).toBeNull();
  });

  it('needs nothing when Java 17+ is there, and Chromium for the tests only', () => {
    expect(plan('test', debianRoot)).toEqual({ missing: [] });
    expect(plan('start', { ...debianRoot, chromium: false })).toEqual({ missing: [] });
  });

  it('installs what is missing with apt-get as root or with passwordless sudo', () => {
    const none = { ...debianRoot, javaMajor: null, chromium: false };
    expect(plan('test', none).install).toEqual({ packages: ['openjdk-17-jre-headless', 'chromium'], sudo: false });
    expect(plan('start', none).install).toEqual({ packages: ['openjdk-17-jre-headless'], sudo: false });
    expect(plan('test', { ...none, root: false, sudo: true }).install).toEqual({ packages: ['openjdk-17-jre-headless', 'chromium'], sudo: true });
    expect(plan('start', { ...debianRoot, javaMajor: 11 })).toMatchObject({
      missing: ['Java 17+ (found Java 11)'],
      install: { packages: ['openjdk-17-jre-headless'] },
    });
  });

  it('else gives the exact command to run', () => {
    const user = { ...debianRoot, chromium: false, root: false, sudo: false };
    expect([plan('test', user).install, plan('test', user).commands]).toEqual([undefined, ['sudo apt-get update && sudo apt-get install -y chromium']]);
    expect(plan('test', { ...debianRoot, chromium: false, installAllowed: false }).commands).toEqual(['apt-get update && apt-get install -y chromium']);
    const mac = { ...debianRoot, platform: 'darwin' as const, apt: false, debian: false, javaMajor: null, chromium: false };
    expect(plan('test', mac).commands).toEqual([
      'brew install openjdk@17',
      'brew install --cask chromium && export CHROMIUM_PATH=/Applications/Chromium.app/Contents/MacOS/Chromium',
    ]);
    // A Chromium of one's own is never replaced by Debian's.
    expect(plan('test', { ...debianRoot, openssl: false })).toEqual({
      missing: [expect.stringContaining('openssl')],
      install: { packages: ['openssl'], sudo: false },
    });
    expect(plan('start', { ...debianRoot, openssl: false })).toEqual({ missing: [] });
    const own = plan('test', { ...debianRoot, chromium: false, chromiumPath: '/opt/chrome/chrome' });
    expect([own.install, own.commands]).toEqual([
      undefined,
      ["install Chromium at /opt/chrome/chrome, or unset CHROMIUM_PATH to use Debian's (/usr/bin/chromium)"],
    ]);
  });

  it("installs what the integration recipes run with, for the tests only: Python's cryptography, curl; a JDK for both (DynamoDB Local's loopback launcher)", () => {
    const bare = { ...debianRoot, javaCompiler: false, pythonCryptography: false, curl: false };
    expect(plan('start', bare)).toMatchObject({ missing: [expect.stringContaining('loopback')], install: { packages: ['openjdk-17-jdk-headless'] } });
    expect(plan('test', bare)).toMatchObject({
      missing: [expect.stringContaining('jdk.compiler'), expect.stringContaining('cryptography'), expect.stringContaining('curl')],
      install: { packages: ['openjdk-17-jdk-headless', 'python3-cryptography', 'curl'], sudo: false },
    });
    // A python of one's own (pyenv, a virtualenv) is not Debian's: apt-get cannot give it cryptography.
    const pyenv = plan('test', { ...debianRoot, pythonCryptography: false, systemPython: false, python: '/opt/py/bin/python3' });
    expect([pyenv.install, pyenv.commands]).toEqual([
      undefined,
      [expect.stringMatching(/^\/opt\/py\/bin\/python3 -m pip install cryptography .*RECIPES_PYTHON/)],
    ]);
  });

  it("installs, for the tests only, Debian's jars that the generated Java client compiles against", () => {
    const bare = { ...debianRoot, javaClientJars: ['libjaxrs-api-java', 'libswagger-core-java'] };
    expect(plan('start', bare)).toEqual({ missing: [] });
    expect(plan('test', bare)).toEqual({
      missing: [expect.stringContaining('libjaxrs-api-java libswagger-core-java')],
      install: { packages: ['libjaxrs-api-java', 'libswagger-core-java'], sudo: false },
    });
    const mac = plan('test', { ...bare, apt: false, debian: false, platform: 'darwin' });
    expect(mac.commands).toEqual([expect.stringMatching(/^the Java client test compiles against Debian's/)]);
  });

  it('stops at once, before any test, saying what is missing and what to run, when it cannot install', () => {
    const root = resolve(import.meta.dirname, '..', '..');
    const empty = mkdtempSync(join(tmpdir(), 'ptbs-nopath-'));
    // An empty PATH: no java, no apt-get, so nothing can be installed (and a python that is not there,
    // or Debian's /usr/bin/python3 would serve the recipes).
    const started = Date.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/prerequisites.ts', 'test'], {
      cwd: root,
      env: { ...process.env, PATH: empty, CHROMIUM_PATH: join(empty, 'chromium'), RECIPES_PYTHON: join(empty, 'python3') },
      encoding: 'utf8',
      timeout: 30_000,
    });
    rmSync(empty, { recursive: true, force: true });
    expect(r.status, r.stderr).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.stderr).toMatch(
      /^npm test needs what this machine lacks:\n {2}- Java 17\+ .*\n {2}- Chromium at .*\n {2}- openssl .*\n {2}- a JDK \(module jdk\.compiler\).*\n {2}- Python 3 .*\n {2}- curl .*\nRun this, then npm test again:\n {2}\S/,
    );
  }, 30_000);
});
