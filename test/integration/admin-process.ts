import '../../scripts/quiet-sdk';
import { runCli } from '../../scripts/admin/cli';

/**
 * The admin CLI kept running for one test file (helpers.ts forks it): each message `{ id, args }` runs one
 * command, as `npm run -s admin -- ...args` would, and answers `{ id, code, stdout, stderr }`. Starting the CLI
 * costs about a second of CPU; the tests run it hundreds of times, and CI has two cores. Commands run one at
 * a time (stdout and stderr are the process's own, captured per command); a race between two CLI processes
 * is tested with real processes (helpers.ts `adminProcess`).
 */
type Request = { id: number; args: string[] };

let queue: Promise<unknown> = Promise.resolve();

async function runCaptured(args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const originals = { stdout: process.stdout.write, stderr: process.stderr.write };
  const capture =
    (into: string[]) => (chunk: string | Uint8Array, encoding?: BufferEncoding | ((e?: Error | null) => void), cb?: (e?: Error | null) => void) => {
      into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      (typeof encoding === 'function' ? encoding : cb)?.();
      return true;
    };
  process.stdout.write = capture(stdout) as typeof process.stdout.write;
  process.stderr.write = capture(stderr) as typeof process.stderr.write;
  try {
    const code = await runCli(args).catch((e: Error) => {
      stderr.push(`${e.stack ?? e.message}\n`);
      return 1;
    });
    return { code, stdout: stdout.join(''), stderr: stderr.join('') };
  } finally {
    process.stdout.write = originals.stdout;
    process.stderr.write = originals.stderr;
  }
}

process.on('message', (m: Request) => {
  queue = queue.then(async () => process.send!({ id: m.id, ...(await runCaptured(m.args)) }));
});
// The test file's process is gone (or done with it): exit, so the IAM usage of the operator is written.
process.on('disconnect', () => process.exit(0));
process.send!({ ready: true });
