import { prerequisites } from './prerequisites';

/**
 * `npm start`: the prerequisites, then the local stack, in this one process. npm runs a script as
 * `sh -c "<script>"` and passes SIGINT and SIGTERM to that shell only; a shell running `a && b` does not
 * pass them on (dash waits for its child on SIGINT, and dies alone on SIGTERM, leaving the stack running).
 * So the script is `exec node ... scripts/start.ts`: the shell becomes this process, and a signal sent to
 * npm's PID (a process manager's stop, an IDE's stop button, `kill $!`) reaches the stack's own handlers
 * (infra/local/start.ts), which stop every server and DynamoDB Local. Until those handlers are installed (the
 * prerequisites step), a signal ends this process at once, as its default action does. The stack's "Ready in"
 * counts from this process's start (performance.timeOrigin), so it includes the prerequisites step.
 */
const status = prerequisites('start');
if (status !== 0) process.exit(status);
await import('../infra/local/start');
