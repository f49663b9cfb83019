import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { docsMarkdown, runnableBlocks } from '../../scripts/docs/docs-files';

const ROOT = resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/**
 * Each block runs in bash as a reader would paste it, on the test stack's PORT and
 * LOCAL_STATE_DIR (not the defaults), stopping at the first failing command; curl
 * fails on any answer >= 400 (and still prints it).
 */
async function runBlock(code: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(inject('port')), LOCAL_STATE_DIR: inject('stateDir') };
  for (const k of Object.keys(env)) if (k.startsWith('PTBS_')) delete env[k];
  const script = `set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n${code}\n`;
  return run('bash', ['-c', script], { cwd: ROOT, env, timeout: 150_000, maxBuffer: 16 * 1024 * 1024 }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
  );
}

const files = ['README.md', 'recipes/README.md', ...docsMarkdown()];
const blocks = files.flatMap((file) => runnableBlocks(readFileSync(resolve(ROOT, file), 'utf8')).map((b) => ({ file, ...b, name: `${file}:${b.line}` })));

describe('the runnable shell blocks of README.md and docs/, on another port and state directory', () => {
  it('finds the marked blocks, none tied to the default port or state directory', () => {
    expect(runnableBlocks('<!-- runnable -->\n```sh\necho a\n```\n\n```sh\necho b\n```\n')).toEqual([{ line: 3, code: 'echo a' }]);
    expect(blocks.filter((b) => b.file.startsWith('docs/guides/')).length).toBeGreaterThanOrEqual(20);
    for (const b of blocks) expect(b.code, b.name).not.toMatch(/:3000\b|\.local\//);
  });

  // Files run side by side, the blocks of one file in their order (a block may rely on what an earlier one made):
  // each block waits for the one before it in its file.
  const previous = new Map<string, Promise<unknown>>();
  const timings: string[] = [];
  describe.concurrent('blocks', () => {
    it.each(blocks.map((b) => [b.name, b] as const))(
      '%s exits 0',
      async (_, b) => {
        const before = previous.get(b.file) ?? Promise.resolve();
        let done!: () => void;
        previous.set(b.file, new Promise<void>((r) => (done = r)));
        try {
          await before;
          const started = Date.now();
          const r = await runBlock(b.code);
          timings.push(`${b.name} ${Date.now() - started} ms`);
          expect(r.code, `${b.code}\n--- stdout\n${r.stdout.slice(-3000)}\n--- stderr\n${r.stderr.slice(-3000)}`).toBe(0);
        } finally {
          done();
        }
      },
      300_000,
    );
  });
  afterAll(() => {
    if (process.env.DOCS_BLOCK_TIMINGS) console.log(timings.join('\n'));
  });
});

describe('every script finds the running stack the same way', () => {
  const env = () => {
    const e: NodeJS.ProcessEnv = { ...process.env, LOCAL_STATE_DIR: inject('stateDir') };
    delete e.PORT;
    return e;
  };
  const admin = (args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { cwd: ROOT, env: env(), timeout: 60_000 }).then((r) => JSON.parse(r.stdout));

  it('without PORT, metrics:summary reads the running stack (its log and queues), as demo:keys finds its base URL', async () => {
    const metrics = await admin(['metrics:summary', '--json']);
    expect(metrics.source).toBe(resolve(inject('stateDir'), 'logs', `lambda-${inject('port')}.jsonl`));
    expect(metrics.queues?.length).toBeGreaterThan(0);
    const demo = await admin(['demo:keys', '--json']);
    expect(demo).toMatchObject({ base_url: inject('baseUrl'), test_key: inject('demoTestKey') });
    expect(demo.live_key).toMatch(/^sk_live_/);
  }, 90_000);
});
