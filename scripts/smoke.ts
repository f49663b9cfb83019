import { Cleanup, liveChecks, sandboxJourney } from './smoke/journey';
import { readArgs, type SmokeOptions, USAGE, UsageError, validate } from './smoke/options';
import { admin } from './smoke/payment-key';
import { Report, redact, StepFailed } from './smoke/report';

/**
 * npm run smoke -- --base-url URL: a partner's journey against any deployment, one line per
 * step, exit 1 at the first failure (2 for a usage error). See docs/operations/deploying.md.
 */
async function options(): Promise<SmokeOptions> {
  const { help, ...args } = readArgs(process.argv.slice(2), process.env);
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (!args.baseUrl && !args.sandboxKey) {
    // No target given: the local stack of npm start and its demo partner, as the quickstart does.
    const demo = await admin(['demo:keys']).catch((e: Error) => {
      throw new UsageError(`${e.message}\n(or give --base-url and PTBS_SANDBOX_KEY)`);
    });
    Object.assign(args, { baseUrl: demo.base_url, sandboxKey: demo.test_key, liveKey: args.liveKey ?? demo.live_key });
  }
  return validate(args);
}

async function main(): Promise<number> {
  let o: SmokeOptions;
  try {
    o = await options();
  } catch (e) {
    // A key given where it does not belong (a positional argument) must not be echoed.
    process.stderr.write(`error: ${redact((e as Error).message)}\n${e instanceof UsageError ? `\n${USAGE}\n` : ''}`);
    return 2;
  }
  const report = new Report([o.sandboxKey, o.liveKey ?? '']);
  const cleanup = new Cleanup();
  // Ctrl-C: undo what the run made (the webhook endpoint, an uncancelled booking) before leaving.
  process.once('SIGINT', () => {
    report.failed ??= 'interrupted';
    void cleanup.run(report).finally(() => process.exit(130));
  });
  try {
    await sandboxJourney(o, report, cleanup);
    await liveChecks(o, report);
  } catch (e) {
    if (!(e instanceof StepFailed)) throw e;
  } finally {
    await cleanup.run(report);
  }
  return report.summary(o.baseUrl);
}

process.exitCode = await main();
