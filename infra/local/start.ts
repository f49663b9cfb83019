import { createServer } from 'node:net';
import '../../scripts/quiet-sdk';
import { ensureCatalog, ensureDemoPartner } from './demo';
import { gsiLagFromEnv } from './gsi-lag';
import { MissingJavaError } from './services';
import { defaultStateDir, startLocalStack } from './stack';

// A closed terminal or pipe must not abort the shutdown that stops DynamoDB Local.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);

// "Ready in" counts from the command's start: this process's (performance.timeOrigin), which `npm start` makes the
// prerequisites step's too (scripts/start.ts runs it, then imports this, in one process), node's and tsx's start included.
const started = performance.timeOrigin;
const reset = process.argv.includes('--reset');
const port = Number(process.env.PORT ?? 3000);
const stateDir = defaultStateDir();

let stack: Awaited<ReturnType<typeof startLocalStack>> | undefined;
let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  // During boot there is nothing to stop gracefully: exiting kills DynamoDB Local through its exit hook.
  if (!stack) process.exit(130);
  console.log(`\n${signal}: stopping the local stack...`);
  await stack.stop();
  console.log('Stopped.');
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGHUP', () => void shutdown('SIGHUP'));

/** Whether something already listens on the API's port: asked before the minute of booting, not after it. */
const portTaken = (p: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'EADDRINUSE'));
    probe.listen(p, '127.0.0.1', () => probe.close(() => resolve(false)));
  });

const portTakenMessage = (p: number) =>
  `Port ${p} is already in use (another npm start, or another program): stop it, or start on another port with PORT=<port> npm start.`;

try {
  if (port !== 0 && (await portTaken(port))) {
    console.error(portTakenMessage(port));
    process.exit(1);
  }
  let catalog = '';
  let demo: Awaited<ReturnType<typeof ensureDemoPartner>> | undefined;
  // On by default, as AWS's indexes are never immediate: a quarter of a second unless LOCAL_GSI_LAG_MS says otherwise (0: off).
  const gsiLagMs = gsiLagFromEnv(250);
  stack = await startLocalStack({
    port,
    consolePort: process.env.CONSOLE_PORT ? Number(process.env.CONSOLE_PORT) : undefined,
    stateDir,
    reset,
    gsiLagMs,
    onFatal: (message) => {
      console.error(message);
      process.exit(1);
    },
    // Before the API listens: /v1/health answers once the catalog is there and a new partner's sandbox has it.
    beforeListen: async () => {
      catalog = await ensureCatalog((line) => console.log(line));
      demo = await ensureDemoPartner(stateDir);
    },
  });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    [
      '',
      'Partner travel booking service: local stack is up',
      `  Base URL     ${stack.baseUrl}`,
      `  Sandbox key  ${demo!.test_key}   (Demo Bank, PARTNER_ADMIN)`,
      `  Live key     ${demo!.live_key}   (live writes are signed: docs/guides/authentication.md)`,
      `  Try          curl -s -H "Authorization: Bearer ${demo!.test_key}" ${stack.baseUrl}/me`,
      `  Console      ${stack.consoleUrl}   sign in as ${demo!.console_email} with ${demo!.console_password}`,
      '               (the first sign-in enrols an authenticator app: docs/guides/console.md)',
      `  Catalog      ${catalog}`,
      `  State        ${stateDir}   (npm start -- --reset starts empty)`,
      ...(stack.recovered.events || stack.recovered.deliveries
        ? [`  Recovered    ${stack.recovered.events} event(s) and ${stack.recovered.deliveries} webhook delivery(ies) left by the last run, re-driven now`]
        : []),
      ...(stack.recovered.listRows.bookings || stack.recovered.listRows.quotes || stack.recovered.listRows.keys
        ? [
            `  Migrated     ${stack.recovered.listRows.bookings} booking(s), ${stack.recovered.listRows.quotes} quote(s) and ${stack.recovered.listRows.keys} key(s) to their list rows (data:list-rows)`,
          ]
        : []),
      ...(stack.recovered.advances ? [`  Recovered    ${stack.recovered.advances} sandbox clock advance(s) left playing by the last run, resumed now`] : []),
      ...(stack.recovered.settlements
        ? [`  Recovered    ${stack.recovered.settlements} settlement(s) issued by the last run without their documents, completed now`]
        : []),
      `Ready in ${secs} s. Press Ctrl-C to stop.`,
      '',
    ].join('\n'),
  );
} catch (e) {
  if (e instanceof MissingJavaError) {
    console.error(e.message);
  } else if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE' && (e as NodeJS.ErrnoException & { port?: number }).port === port) {
    // Taken during the boot, after the check above.
    console.error(portTakenMessage(port));
  } else {
    console.error(`The local stack failed to start: ${(e as Error).message}`);
  }
  process.exit(1);
}
