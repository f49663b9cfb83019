import { parseArgs } from 'node:util';
import { NoLocalStackError, WhichStackError } from '../../infra/local/find-stack';
import { COMMANDS } from './commands';
import { connect, runAsInvocation, UsageError } from './target';

/**
 * The operators' CLI: npm run -s admin -- <command> [--flags] [--json].
 * With --json, stdout carries exactly one JSON document; errors go to stderr
 * with a non-zero exit (2 for usage errors, 1 otherwise).
 */
function help(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.description}`);
  return `Usage: npm run -s admin -- <command> [flags] [--json]\n\nCommands:\n${lines.join('\n')}\n\nTarget: the running local stack (same PORT and LOCAL_STATE_DIR as npm start);\nADMIN_TARGET=aws [STACK_NAME=...] acts on a deployed stack.`;
}

/** Runs one command of the CLI, writing its answer to stdout and its errors to stderr; returns the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name) {
    process.stderr.write(`${help()}\n`);
    return 2;
  }
  if (name === 'help' || name === '--help') {
    process.stdout.write(
      rest.includes('--json')
        ? `${JSON.stringify({ commands: Object.entries(COMMANDS).map(([n, c]) => ({ name: n, usage: c.usage, description: c.description })) })}\n`
        : `${help()}\n`,
    );
    return 0;
  }
  const cmd = COMMANDS[name];
  const json = rest.includes('--json');
  try {
    if (!cmd) throw new UsageError(`unknown command '${name}'; run 'npm run -s admin -- help' for the list`);
    const { values, positionals } = parseArgs({
      args: rest.filter((a) => a !== '--json'),
      options: optionsFor(cmd.flags),
      strict: true,
      allowPositionals: true,
    });
    const named = cmd.positionals ?? [];
    if (positionals.length > named.length) throw new UsageError(`unexpected argument '${positionals[named.length]}'\nusage: ${cmd.usage}`);
    const parsed = cmd.flags.safeParse({ ...values, ...Object.fromEntries(positionals.map((v, i) => [named[i]!, v])) });
    if (!parsed.success) {
      const msg = parsed.error.issues
        .map((i) => `${named.includes(String(i.path[0])) ? String(i.path[0]).toUpperCase() : `--${i.path.join('.')}`}: ${i.message}`)
        .join('; ');
      throw new UsageError(`${msg}\nusage: ${cmd.usage}`);
    }
    const out = cmd.offline
      ? await cmd.run(parsed.data as Record<string, unknown>)
      : await runAsInvocation(await connect(), name, () => cmd.run(parsed.data as Record<string, unknown>));
    process.stdout.write(json ? `${JSON.stringify(out.json)}\n` : `${out.text}\n`);
    return 0;
  } catch (e) {
    const err = e as Error;
    const usage = err instanceof UsageError || err instanceof WhichStackError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    // The stores' error classes are loaded here, on the error path only: each command loads the modules it
    // uses, and the CLI starts without the others (jose, the catalog), as the tests start it hundreds of times.
    const [{ AccessError }, { PaymentKeyError }, { CatalogFileError }, { ApiError }] = await Promise.all([
      import('../../shared/access/store'),
      import('../../shared/bookings/payment-keys'),
      import('../../shared/catalog/operations'),
      import('../../shared/kernel/errors'),
    ]);
    const known =
      err instanceof NoLocalStackError ||
      err instanceof AccessError ||
      err instanceof CatalogFileError ||
      err instanceof PaymentKeyError ||
      err instanceof ApiError;
    const message = known || usage ? err.message : `${err.name}: ${err.message}`;
    if (json) process.stderr.write(`${JSON.stringify({ error: { message, kind: err instanceof AccessError ? err.kind : usage ? 'usage' : 'failure' } })}\n`);
    else process.stderr.write(`error: ${message}\n`);
    return usage ? 2 : 1;
  }
}

function optionsFor(schema: import('zod').ZodObject) {
  const opts: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const [k, v] of Object.entries(schema.shape)) {
    const inner = (v as { unwrap?: () => unknown }).unwrap?.() ?? v;
    opts[k] = { type: (inner as { def?: { type?: string } }).def?.type === 'boolean' ? 'boolean' : 'string' };
  }
  return opts;
}
