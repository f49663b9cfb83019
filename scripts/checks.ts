import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

/**
 * The checks of `npm test` that need no local stack (the deploy rehearsal, typecheck, lint, check:cycles)
 * side by side: the commands of those package.json scripts (a script's `a && b` parts too) run one per
 * core, each one's output is printed whole when it fails (the rehearsal's summary also when it passes),
 * and the run fails when any of them fails.
 *
 *   node --import tsx scripts/checks.ts [script ...]   (default: rehearse typecheck lint check:cycles)
 */

const ROOT = resolve(import.meta.dirname, '..');
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
// The longest first: the rehearsal (a synth of two regions, bundling once), then tsc of the service.
const names = process.argv.slice(2).length ? process.argv.slice(2) : ['rehearse', 'typecheck', 'lint', 'check:cycles'];
/** What a passing check still says: the rehearsal's figures per check and region, and its verdict. */
const SUMMARY: Record<string, RegExp> = { rehearse: /^(cdk synth|Rehearsal of|\s+(ok|FAIL)\s|\s+warning|rehearsal )/ };

const commands = names.flatMap((name) => {
  const script = scripts[name];
  if (!script) throw new Error(`no script '${name}' in package.json`);
  return script.split(' && ').map((command) => ({ name, command }));
});

// As `npm run` does: the project's binaries first on the PATH.
const env = { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}` };

function run({ name, command }: { name: string; command: string }): Promise<boolean> {
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(command, { cwd: ROOT, env, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', (e) => (out += `${e.message}\n`));
    child.on('close', (code) => {
      const ok = code === 0;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${command} (${seconds} s)\n`);
      if (!ok && out.trim()) process.stdout.write(`${out.trimEnd()}\n\n`);
      const summary = SUMMARY[name];
      if (ok && summary)
        process.stdout.write(
          `${out
            .split('\n')
            .filter((l) => summary.test(l))
            .join('\n')}\n\n`,
        );
      done(ok);
    });
  });
}

// One command per core, the first ones first: more at once only slow the longest (tsc) down.
const results: boolean[] = [];
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(availableParallelism(), commands.length) }, async () => {
    while (next < commands.length) {
      const i = next++;
      results[i] = await run(commands[i]!);
    }
  }),
);
const failed = commands.filter((_, i) => !results[i]);
if (failed.length) process.stdout.write(`${failed.length} of ${commands.length} checks failed: ${failed.map((c) => c.command).join('; ')}\n`);
process.exitCode = failed.length ? 1 : 0;
