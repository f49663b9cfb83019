import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { LAMBDA_NODE_MODULES } from '../infra/constructs/esbuild-cjs';
import { cacheSpecs, LAMBDA_PLATFORM, lambdaPlatformPackages } from '../infra/lambda-packages';

/**
 * Puts the Lambda platform's binaries of the native packages (sharp's linux-arm64 builds) in the npm cache, at
 * the lock file's versions, so that a synth installs them beside the bundle without the registry. `npm ci` of
 * the project skips them on any other platform. The synth's `npm ci` checks them against the lock file's
 * integrity.
 *
 *   npm run -s lambda-packages            fetch them (the registry, or npm_config_registry)
 *   npm run -s lambda-packages -- --list  only print them
 */
const ROOT = resolve(import.meta.dirname, '..');
const packages = lambdaPlatformPackages(join(ROOT, 'package-lock.json'), LAMBDA_NODE_MODULES);
const specs = cacheSpecs(packages);
if (process.argv.includes('--list')) {
  for (const p of packages) console.log(`${p.name}@${p.version} ${p.integrity}`);
} else {
  console.log(`npm cache add ${specs.join(' ')}   (${LAMBDA_PLATFORM.os} ${LAMBDA_PLATFORM.cpu} ${LAMBDA_PLATFORM.libc})`);
  execFileSync('npm', ['cache', 'add', ...specs], { stdio: 'inherit' });
}
