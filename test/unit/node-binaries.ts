import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** One Node.js binary per major version: the project's (node_modules/.bin), the one running the tests, those on the PATH. */
export function nodeBinaries(): Map<number, { path: string; tz: string }> {
  const candidates = [
    join(ROOT, 'node_modules', '.bin', 'node'),
    process.execPath,
    ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'node')),
    '/usr/local/bin/node',
    '/usr/bin/node',
  ];
  const found = new Map<number, { path: string; tz: string }>();
  for (const path of new Set(candidates.filter((p) => existsSync(p)).map((p) => realpathSync(p)))) {
    const [version, tz] = execFileSync(path, ['-p', 'process.versions.node + " " + process.versions.tz'], { encoding: 'utf8' }).trim().split(' ');
    const major = Number(version!.split('.')[0]);
    if (!found.has(major)) found.set(major, { path, tz: tz! });
  }
  return found;
}
