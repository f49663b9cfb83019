import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { functionLogFile } from '../../infra/local/logs';
import { readRuntime } from '../../infra/local/runtime-info';
import { freePort } from '../../infra/local/services';
import { eventKeys } from '../../shared/events/keys';
import { webhookKeys } from '../../shared/webhooks/keys';

/** A second local stack of its own, started as `npm start` does, for what the shared test stack cannot undergo. */
const ROOT = resolve(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function boot(stateDir: string, port: number): Promise<{ child: ChildProcess; output: () => string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LOCAL_STATE_DIR: stateDir, WEBHOOK_WAIT_SCALE: '0.0001' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const deadline = Date.now() + 150_000; // as local-recovery.test.ts: a loaded machine has taken 90 s to start a stack
  while (!out.includes('Ready in')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the stack did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, output: () => out, exited };
}

const adminOn = (port: number, stateDir: string, args: string[]) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LOCAL_STATE_DIR: stateDir },
  }).then((r) => JSON.parse(r.stdout));

describe('the local stack', () => {
  it('stops with a message when DynamoDB Local dies, instead of answering 500 forever', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'ptbs-dead-'));
    dirs.push(stateDir);
    const port = await freePort();
    const stack = await boot(stateDir, port);
    process.kill(readRuntime(stateDir, port)!.javaPid!, 'SIGKILL');
    const code = await Promise.race([stack.exited, new Promise((r) => setTimeout(() => r('still running'), 15_000))]);
    expect(code).toBe(1);
    expect(stack.output()).toContain('DynamoDB Local');
    expect(stack.output()).toContain('exited unexpectedly');
  }, 180_000);

  it('after a crash, the next start re-drives at once what the crash left: an event not fanned out, an attempt claimed by a dead worker', async () => {
    const received = new Set<string>();
    const receiver = createServer((req, res) => {
      received.add(req.headers['x-service-event-id'] as string);
      res.writeHead(200).end();
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://localhost:${(receiver.address() as { port: number }).port}/x`;
    const stateDir = mkdtempSync(join(tmpdir(), 'ptbs-crash-'));
    dirs.push(stateDir);
    const port = await freePort();
    let stack = await boot(stateDir, port);
    try {
      const p = await adminOn(port, stateDir, ['partner:create', '--name', 'Crash Bank']);
      const hook = await fetch(`http://127.0.0.1:${port}/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${p.test_key}`, 'idempotency-key': randomUUID(), 'content-type': 'application/json' },
        body: JSON.stringify({ url, event_types: ['booking.cancelled'] }),
      });
      expect(hook.status).toBe(201);
      const endpointId = ((await hook.json()) as { id: string }).id;

      // What a crash leaves: an event recorded but never fanned out, and a delivery whose attempt a worker
      // claimed (for 10 more minutes) before it died.
      const runtime = readRuntime(stateDir, port)!;
      const ddb = DynamoDBDocumentClient.from(
        new DynamoDBClient({
          region: 'us-east-1',
          endpoint: runtime.env.AWS_ENDPOINT_URL_DYNAMODB,
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
      );
      const now = new Date().toISOString();
      const event = (id: string) => ({ id, type: 'booking.cancelled', created_at: now, test: true, data: { booking_number: 'PTB-TEST-0001' } });
      const orphan = randomUUID();
      const claimed = randomUUID();
      const deliveryId = randomUUID();
      const put = (Item: Record<string, unknown>) => ddb.send(new PutCommand({ TableName: runtime.env.DATA_TABLE!, Item }));
      await put({
        ...eventKeys.event(p.partner_id, 'test', now, orphan),
        type: 'event',
        partner_id: p.partner_id,
        env: 'test',
        event: event(orphan),
        dispatch: 'PENDING',
        ...eventKeys.pending(now, orphan),
      });
      const ref = eventKeys.event(p.partner_id, 'test', now, claimed);
      await put({ ...ref, type: 'event', partner_id: p.partner_id, env: 'test', event: event(claimed), dispatch: 'DONE' });
      await put({
        ...webhookKeys.delivery(deliveryId),
        type: 'delivery',
        id: deliveryId,
        partner_id: p.partner_id,
        env: 'test',
        event_id: claimed,
        event_type: 'booking.cancelled',
        event_ref: ref,
        endpoint_id: endpointId,
        url,
        status: 'PENDING',
        attempts: 0,
        last_http_status: null,
        last_error: null,
        last_attempt_at: null,
        next_attempt_at: now,
        delivered_at: null,
        dead_lettered_at: null,
        replay_of: null,
        test: true,
        created_at: now,
        updated_at: now,
        claimed_attempt: 1,
        claim_until: Date.now() + 10 * 60_000,
        ...webhookKeys.deliveriesIndex(p.partner_id, 'test', now, deliveryId),
        ...webhookKeys.pending(now, deliveryId),
      });
      stack.child.kill('SIGKILL');
      process.kill(runtime.javaPid!, 'SIGKILL');
      await stack.exited;

      stack = await boot(stateDir, port);
      expect(stack.output()).toMatch(/Recovered\s+1 event\(s\) and 1 webhook delivery/);
      // Counted from the stack's readiness, not from before its boot (which takes most of a loaded CI's budget).
      const ready = Date.now();
      while (received.size < 2 && Date.now() - ready < 60_000) await new Promise((r) => setTimeout(r, 100));
      // On a failure, what the functions logged at WARN and above says which of the two stalled, and why.
      const logFile = functionLogFile(stateDir, port);
      const warnings = () =>
        (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '')
          .split('\n')
          .filter((l) => /"level":"(WARN|ERROR|CRITICAL)"/.test(l))
          .slice(-20)
          .join('\n');
      expect([...received].sort(), `orphan ${orphan}, claimed ${claimed}\n${stack.output().slice(-3000)}\n${warnings()}`).toEqual([orphan, claimed].sort());
    } finally {
      stack.child.kill('SIGTERM');
      await stack.exited;
      receiver.close();
    }
  }, 300_000);
});
