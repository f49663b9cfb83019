import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The platform every function runs on (Architecture.ARM_64, Amazon Linux 2023), as npm's os, cpu and libc. */
export const LAMBDA_PLATFORM = { os: 'linux', cpu: 'arm64', libc: 'glibc' } as const;

interface LockEntry {
  version?: string;
  integrity?: string;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
}

export interface PlatformPackage {
  name: string;
  version: string;
  integrity: string;
}

const fits = (allowed: string[] | undefined, value: string) => !allowed || allowed.includes(value);

/**
 * The packages of the Lambda platform that `names` (native packages, e.g. sharp) install as optional dependencies,
 * with the version and integrity the lock file holds (sharp: @img/sharp-linux-arm64 and, through it,
 * @img/sharp-libvips-linux-arm64). npm installs them beside the bundle only when it can fetch them, and skips an
 * optional package it cannot fetch without failing: the bundling checks they are there.
 */
export function lambdaPlatformPackages(lockFile: string, names: string[]): PlatformPackage[] {
  const packages = (JSON.parse(readFileSync(lockFile, 'utf8')) as { packages: Record<string, LockEntry> }).packages;
  const found = new Map<string, PlatformPackage>();
  const visit = (name: string) => {
    for (const dep of Object.keys(packages[`node_modules/${name}`]?.optionalDependencies ?? {})) {
      const e = packages[`node_modules/${dep}`];
      // Only the platform-specific ones (they declare an os or cpu), and of those only the Lambda platform's.
      if (!e?.version || !e.integrity || found.has(dep) || !(e.os || e.cpu)) continue;
      if (!fits(e.os, LAMBDA_PLATFORM.os) || !fits(e.cpu, LAMBDA_PLATFORM.cpu) || !fits(e.libc, LAMBDA_PLATFORM.libc)) continue;
      found.set(dep, { name: dep, version: e.version, integrity: e.integrity });
      visit(dep);
    }
  };
  for (const n of names) visit(n);
  return [...found.values()];
}

/** What `npm cache add` takes to put those packages in the npm cache, from which a synth then installs them offline. */
export const cacheSpecs = (packages: PlatformPackage[]) => packages.map((p) => `${p.name}@${p.version}`);

/**
 * A shell command that fails the bundling, saying what to do, unless every platform package is installed in
 * `outputDir` (the bundle's node_modules).
 */
export function platformPackagesCheck(outputDir: string, packages: PlatformPackage[]): string {
  if (packages.length === 0) return 'true';
  const missing = packages.map((p) => `[ -f "${join(outputDir, 'node_modules', p.name, 'package.json')}" ]`).join(' && ');
  const message =
    `The Lambda bundle lacks ${cacheSpecs(packages).join(', ')} (${LAMBDA_PLATFORM.os} ${LAMBDA_PLATFORM.cpu}): npm skips an optional ` +
    'package it cannot fetch. Fetch them once where the npm registry (or your mirror, npm_config_registry) is reachable: ' +
    'npm run -s lambda-packages; then synthesize again (offline is fine). See docs/operations/deploying.md.';
  return `${missing} || { echo '${message}' >&2; exit 1; }`;
}
