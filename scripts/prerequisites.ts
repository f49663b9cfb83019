import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { javaClientJarsMissing } from './java-client';
import { recipesPython } from './recipes-python';

/**
 * What `npm start` and `npm test` need beyond `npm install`, checked before
 * anything starts: a Java runtime 17+ (DynamoDB Local is a Java program) and,
 * for the tests, Chromium (the reference page's browser test), openssl (the
 * HTTPS webhook test's certificates) and what the integration recipes run with
 * (recipes/: the Java source launcher, Python's cryptography, curl), and the jars a
 * generated Java client compiles against (scripts/java-client.ts). What is missing
 * is installed with apt-get where that can be done unattended (Debian or
 * Ubuntu, as root or with passwordless sudo), as .ci/run does; otherwise the
 * script stops at once with the exact command to run.
 *
 *   node --import tsx scripts/prerequisites.ts start|test|console
 *
 * Both needs also build the console (console/dist) when it is stale; `console`
 * (npm run synth and deploy) does only that.
 *
 * PREREQUISITES_INSTALL=never only says what to run; CHROMIUM_PATH points at
 * another Chromium (default /usr/bin/chromium, Debian's); RECIPES_PYTHON at
 * another python for the Python recipes (default python3 on the PATH).
 */

export type Need = 'start' | 'test';

export interface Facts {
  /** Major version of `java` on the PATH; null when there is none. */
  javaMajor: number | null;
  chromiumPath: string;
  chromium: boolean;
  /** openssl on the PATH: the HTTPS webhook test makes its certificates with it, the curl recipes sign with it. */
  openssl: boolean;
  /** The jdk.compiler module: `java File.java` (the Java recipes) compiles in memory with it; a bare JRE lacks it. */
  javaCompiler: boolean;
  /** Debian packages of the jars the generated Java client compiles against that are not in /usr/share/java. */
  javaClientJars: string[];
  /** The python the recipes run with (recipesPython()), and whether it imports cryptography. */
  python: string;
  pythonCryptography: boolean;
  /** That python is Debian's /usr/bin/python3 (or there is none), which apt-get's python3-cryptography serves. */
  systemPython: boolean;
  curl: boolean;
  platform: NodeJS.Platform;
  /** apt-get is on the PATH (Debian, Ubuntu). */
  apt: boolean;
  /** A Debian-family system (/etc/debian_version), where apt-get is the way to install. */
  debian: boolean;
  root: boolean;
  /** sudo runs without asking for a password. */
  sudo: boolean;
  /** The Java package apt can install here (the first of openjdk-17, openjdk-21, default-jre-headless it knows). */
  javaPackage: string;
  /** The JDK package that adds jdk.compiler to that Java (openjdk-17-jdk-headless for Java 17). */
  jdkPackage: string;
  installAllowed: boolean;
}

export interface Plan {
  /** What is missing, in words. */
  missing: string[];
  /** Packages to install with apt-get, when that can be done unattended. */
  install?: { packages: string[]; sudo: boolean };
  /** The command(s) to run by hand, when it cannot. */
  commands?: string[];
}

export const JAVA_MIN = 17;
const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** What to do for `need`, from the facts of this machine. */
export function plan(need: Need, f: Facts): Plan {
  const missing: string[] = [];
  const packages: string[] = [];
  const brew: string[] = [];
  if (f.javaMajor === null || f.javaMajor < JAVA_MIN) {
    missing.push(f.javaMajor === null ? `Java ${JAVA_MIN}+ (DynamoDB Local is a Java program)` : `Java ${JAVA_MIN}+ (found Java ${f.javaMajor})`);
    packages.push(f.javaPackage);
    brew.push(`brew install openjdk@${JAVA_MIN}`);
  }
  if (need === 'test' && !f.chromium) {
    missing.push(`Chromium at ${f.chromiumPath} (the reference page's browser test; CHROMIUM_PATH points elsewhere)`);
    if (f.chromiumPath === DEFAULT_CHROMIUM) packages.push('chromium');
    brew.push('brew install --cask chromium && export CHROMIUM_PATH=/Applications/Chromium.app/Contents/MacOS/Chromium');
  }
  if (need === 'test' && !f.openssl) {
    missing.push('openssl (the HTTPS webhook test makes a test certificate authority with it)');
    packages.push('openssl');
    brew.push('brew install openssl');
  }
  // What the integration recipes' test runs them with (test/integration/recipes.test.ts).
  const manual: string[] = [];
  if (!f.javaCompiler) {
    missing.push(
      need === 'test'
        ? 'a JDK (module jdk.compiler): DynamoDB Local is bound to loopback by a launcher javac compiles, and the Java recipes run as java File.java'
        : 'a JDK (module jdk.compiler): DynamoDB Local is bound to loopback by a launcher javac compiles (without it, it listens on every interface)',
    );
    packages.push(f.jdkPackage);
  }
  if (need === 'test' && f.javaClientJars.length) {
    missing.push(`the jars a generated Java client compiles against (test/unit/openapi-java.test.ts): ${f.javaClientJars.join(' ')}`);
    if (f.apt || f.debian) packages.push(...f.javaClientJars);
    else {
      const where = `the Java client test compiles against Debian's /usr/share/java: run npm test on Debian or Ubuntu (${f.javaClientJars.join(' ')})`;
      manual.push(where);
      brew.push(where);
    }
  }
  if (need === 'test' && !f.pythonCryptography) {
    missing.push(`Python 3 with the cryptography package (${f.python}: the Python recipes; RECIPES_PYTHON names another python)`);
    if (f.systemPython) packages.push('python3-cryptography');
    else manual.push(`${f.python} -m pip install cryptography   # or: RECIPES_PYTHON=/usr/bin/python3 with Debian's python3-cryptography`);
    brew.push(`${f.python} -m pip install cryptography`);
  }
  if (need === 'test' && !f.curl) {
    missing.push('curl (the curl recipes)');
    packages.push('curl');
  }
  if (missing.length === 0) return { missing };
  const chromiumElsewhere = need === 'test' && !f.chromium && f.chromiumPath !== DEFAULT_CHROMIUM;
  if (f.apt && f.installAllowed && (f.root || f.sudo) && !chromiumElsewhere && manual.length === 0) return { missing, install: { packages, sudo: !f.root } };
  if (f.platform === 'darwin') return { missing, commands: brew };
  const commands: string[] = [];
  if (packages.length && (f.apt || f.debian)) {
    const sudo = f.root ? '' : 'sudo ';
    commands.push(`${sudo}apt-get update && ${sudo}apt-get install -y ${packages.join(' ')}`);
  } else if (packages.length) {
    if (packages.includes(f.javaPackage)) commands.push(`install a Java ${JAVA_MIN}+ runtime (e.g. https://adoptium.net) and put java on the PATH`);
    if (packages.includes('chromium')) commands.push(`install Chromium and set CHROMIUM_PATH to its executable`);
    if (packages.includes(f.jdkPackage)) commands.push(`install a JDK ${JAVA_MIN}+ (the java of the PATH needs the jdk.compiler module)`);
    if (packages.includes('python3-cryptography')) commands.push('install Python 3 and its cryptography package (pip install cryptography)');
    if (packages.includes('curl')) commands.push('install curl');
  }
  commands.push(...manual);
  if (chromiumElsewhere) commands.push(`install Chromium at ${f.chromiumPath}, or unset CHROMIUM_PATH to use Debian's (${DEFAULT_CHROMIUM})`);
  return { missing, commands };
}

/** `java -version` -> 17 (or 8 for "1.8.0_392"); null without a java on the PATH. */
export function javaMajor(versionOutput: string | null): number | null {
  if (versionOutput === null) return null;
  const m = /version "(\d+)(?:\.(\d+))?/.exec(versionOutput);
  if (!m) return null;
  return m[1] === '1' ? Number(m[2]) : Number(m[1]);
}

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
const onPath = (cmd: string) => (process.env.PATH ?? '').split(delimiter).some((dir) => executable(join(dir, cmd)));

function javaPackage(apt: boolean): string {
  const candidates = [`openjdk-${JAVA_MIN}-jre-headless`, 'openjdk-21-jre-headless', 'default-jre-headless'];
  if (!apt) return candidates[0]!;
  return candidates.find((p) => spawnSync('apt-cache', ['show', p], { stdio: 'ignore' }).status === 0) ?? candidates[0]!;
}

function facts(): Facts {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const modules = spawnSync('java', ['--list-modules'], { encoding: 'utf8' });
  const python = recipesPython();
  const pythonWhere = python.includes('/')
    ? [python].find(executable)
    : (process.env.PATH ?? '')
        .split(delimiter)
        .map((dir) => join(dir, python))
        .find(executable);
  const chromiumPath = process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM;
  let chromium = false;
  try {
    accessSync(chromiumPath, constants.X_OK);
    chromium = true;
  } catch {
    /* absent */
  }
  const apt = onPath('apt-get');
  const root = process.getuid?.() === 0;
  const major = java.error || java.status !== 0 ? null : javaMajor(`${java.stderr}${java.stdout}`);
  const jre = major !== null && major >= JAVA_MIN ? '' : javaPackage(apt);
  return {
    javaMajor: major,
    chromiumPath,
    chromium,
    openssl: onPath('openssl'),
    javaCompiler: !modules.error && modules.status === 0 && /^jdk\.compiler@/m.test(modules.stdout),
    javaClientJars: javaClientJarsMissing(),
    python,
    pythonCryptography: spawnSync(python, ['-c', 'import cryptography'], { stdio: 'ignore' }).status === 0,
    // No python at all: apt-get's python3-cryptography brings Debian's; a python of one's own gets pip's.
    systemPython:
      pythonWhere === undefined ? !python.includes('/') : existsSync('/usr/bin/python3') && realpathSync(pythonWhere) === realpathSync('/usr/bin/python3'),
    curl: onPath('curl'),
    platform: process.platform,
    apt,
    debian: existsSync('/etc/debian_version'),
    root,
    sudo: !root && apt && onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0,
    javaPackage: jre,
    // The JDK of the Java that is there (its jdk.compiler must match), else of the one about to be installed.
    jdkPackage: jre ? jre.replace('-jre-', '-jdk-') : `openjdk-${major}-jdk-headless`,
    installAllowed: process.env.PREREQUISITES_INSTALL !== 'never',
  };
}

function aptInstall(packages: string[], sudo: boolean): boolean {
  const run = (args: string[]) => {
    const [cmd, ...rest] = sudo ? ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args] : ['apt-get', ...args];
    return spawnSync(cmd!, rest, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
  };
  return run(['update', '-qq']) && run(['install', '-y', '-qq', ...packages]);
}

function describeMissing(need: Need, p: Plan): string {
  return `npm ${need} needs what this machine lacks:\n${p.missing.map((m) => `  - ${m}`).join('\n')}`;
}

const ROOT = resolve(import.meta.dirname, '..');
/** What the console's build reads: its sources and the SDK types and operation table it imports. */
const CONSOLE_INPUTS = ['console/src', 'console/index.html', 'console/vite.config.ts', 'console/tsconfig.json', 'console/package.json', 'sdk/src'];
const CONSOLE_STAMP = join(ROOT, 'console', 'dist', '.inputs-sha256');

function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(join(path, name)));
}

export function consoleInputsHash(): string {
  const h = createHash('sha256');
  for (const file of CONSOLE_INPUTS.flatMap((p) => filesUnder(join(ROOT, p)))) h.update(file.slice(ROOT.length)).update('\0').update(readFileSync(file));
  return h.digest('hex');
}

/**
 * The local stack serves the console from console/dist: it is built here when
 * it is missing or older than its sources (a few seconds), so that `npm start`
 * and the browser tests always serve the console of this checkout.
 */
function ensureConsoleBuilt(): boolean {
  const hash = consoleInputsHash();
  if (existsSync(CONSOLE_STAMP) && readFileSync(CONSOLE_STAMP, 'utf8') === hash) return true;
  process.stderr.write('Building the console (console/dist: npm run -s console:build)...\n');
  const r = spawnSync('npm', ['run', '-s', 'console:build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) {
    process.stderr.write('The console build failed (above); fix it, or run npm run -s console:build to see more.\n');
    return false;
  }
  writeFileSync(CONSOLE_STAMP, hash);
  return true;
}

/** Checks (and installs what it can) for `need`, then builds the console if stale: 0 when all is there. */
export function prerequisites(need: Need): number {
  const status = checkMachine(need);
  return status === 0 && !ensureConsoleBuilt() ? 1 : status;
}

function checkMachine(need: Need): number {
  let f = facts();
  let p = plan(need, f);
  if (p.missing.length === 0) return 0;
  if (p.install) {
    process.stderr.write(`${describeMissing(need, p)}\nInstalling ${p.install.packages.join(' ')} with apt-get${p.install.sudo ? ' (sudo)' : ''}...\n`);
    if (aptInstall(p.install.packages, p.install.sudo)) {
      f = facts();
      p = plan(need, { ...f, installAllowed: false });
      if (p.missing.length === 0) {
        process.stderr.write('Installed.\n');
        return 0;
      }
    } else {
      p = plan(need, { ...f, installAllowed: false });
    }
  }
  const lines = [describeMissing(need, p), `Run this, then npm ${need} again:`, ...(p.commands ?? []).map((c) => `  ${c}`)];
  process.stderr.write(`${lines.join('\n')}\n`);
  return 1;
}

if (process.argv[1] && /prerequisites\.ts$/.test(process.argv[1])) {
  const need = process.argv[2];
  if (need === 'console') {
    // npm run synth / deploy: the console's files go into the stack's bucket deployment.
    process.exitCode = ensureConsoleBuilt() ? 0 : 1;
  } else if (need !== 'start' && need !== 'test') {
    process.stderr.write('usage: node --import tsx scripts/prerequisites.ts start|test|console\n');
    process.exitCode = 2;
  } else {
    process.exitCode = prerequisites(need);
  }
}
