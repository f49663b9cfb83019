import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/services';
import { lockFile, readRuntime, runtimeFile } from '../../infra/local/stack';

/**
 * Stacks of their own, started as `npm start` does, for what the shared test
 * stack cannot undergo: its first start, a second stack on its state
 * directory, a SIGKILL and the restart after it. The tests run in order on
 * one stack; this process acts on its tables directly (as a worker would) to
 * stage what a kill leaves.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const stateDir = mkdtempSync(join(tmpdir(), 'ptbs-recovery-'));
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 2_000));
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  receiver.close();
  rmSync(stateDir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function spawnStack(port: number, args: string[] = []): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LOCAL_STATE_DIR: stateDir, WEBHOOK_WAIT_SCALE: '0.0001' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

async function ready(s: Started): Promise<Started> {
  const deadline = Date.now() + 150_000;
  while (!s.output().includes('Ready in')) {
    if (Date.now() > deadline || s.child.exitCode !== null) throw new Error(`the stack did not start:\n${s.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return s;
}

const adminOn = (port: number, args: string[]) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LOCAL_STATE_DIR: stateDir },
  }).then((r) => JSON.parse(r.stdout));

const call = async (port: number, method: string, path: string, key: string, body?: unknown) => {
  const r = await fetch(`http://127.0.0.1:${port}/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'GET' ? {} : { 'idempotency-key': randomUUID() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as any };
};

/** Webhook receiver on a host name: /slow holds each request 3 s (an attempt in flight); everything else answers 200 at once. */
const received: { path: string; event: string; type: string }[] = [];
const receiver = createServer((req: IncomingMessage, res) => {
  received.push({ path: req.url ?? '', event: req.headers['x-service-event-id'] as string, type: req.headers['x-service-event-type'] as string });
  req.resume();
  setTimeout(() => res.writeHead(200).end('ok'), req.url?.startsWith('/slow') ? 3_000 : 0);
});
const receiverUrl = async (path: string) => {
  if (!receiver.listening) await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  return `http://localhost:${(receiver.address() as { port: number }).port}${path}`;
};

const until = async <T>(read: () => Promise<T> | T, ok: (v: T) => boolean, ms = 30_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
};

let port: number;
let stack: Started;
let bootedBefore: Date;
let early: { partner_id: string; test_key: string; live_key: string };
/** What each acknowledged write left, checked again right after the kill and restart, before anything is retried. */
const acknowledged: { what: string; check: () => Promise<unknown> }[] = [];
const ack = (what: string, check: () => Promise<unknown>) => acknowledged.push({ what, check });

describe('the local stack, from its first start to a restart after a kill', () => {
  it('answers /health only once every route can be served: a partner created the moment it answers has the catalog', async () => {
    port = await freePort();
    bootedBefore = new Date();
    stack = spawnStack(port);
    let health: number | undefined;
    const deadline = Date.now() + 150_000;
    while (health !== 200) {
      if (Date.now() > deadline || stack.child.exitCode !== null) throw new Error(`no healthy stack:\n${stack.output()}`);
      // Before it is ready the stack does not listen, or answers 503 "starting": never 200.
      const r = await fetch(`http://127.0.0.1:${port}/v1/health`).catch(() => undefined);
      if (r && r.status !== 200) expect([r.status, await r.json()]).toEqual([503, expect.objectContaining({ status: 'starting' })]);
      health = r?.status;
      if (health !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    // What a script does once /health answers: create a partner, list the catalog.
    early = await adminOn(port, ['partner:create', '--name', 'Early Bank']);
    ack('partner:create Early Bank', async () => expect((await call(port, 'GET', '/me', early.test_key)).status).toBe(200));
    for (const key of [early.test_key, early.live_key]) {
      const list = await call(port, 'GET', '/adventures?limit=1', key);
      expect(list.status).toBe(200);
      expect(list.body.meta.total_results).toBeGreaterThan(0);
    }
    await ready(stack);
  }, 180_000);

  it('refuses a second stack on the same state directory (another port, or --reset), naming the running one, and leaves its data alone', async () => {
    for (const args of [[], ['--reset']]) {
      const second = spawnStack(await freePort(), args);
      const code = await Promise.race([second.exited, new Promise((r) => setTimeout(() => r('still running'), 60_000))]);
      if (code === 'still running') second.child.kill('SIGKILL');
      expect(code, second.output()).toBe(1);
      expect(second.output()).toContain(
        `a local stack (pid ${stack.child.pid}, port ${port}, http://127.0.0.1:${port}/v1) is already running with state in ${stateDir}`,
      );
    }
    const me = await call(port, 'GET', '/me', early.test_key);
    expect(me.status).toBe(200);
    expect((await call(port, 'GET', '/adventures?limit=1', early.test_key)).body.meta.total_results).toBeGreaterThan(0);
  }, 150_000);

  it('the boot sweep drops only the claims of a run that is gone: an attempt in flight is not sent twice', async () => {
    const hook = await call(port, 'POST', '/webhooks', early.test_key, { url: await receiverUrl('/slow/claim'), event_types: ['adventure.unavailable'] });
    expect(hook.status).toBe(201);
    // This process acts on the stack's tables and queues as its workers do.
    Object.assign(process.env, readRuntime(stateDir, port)!.env);
    const { recordEvent } = await import('../../shared/events/record');
    const { exampleData } = await import('../../shared/webhooks/examples');
    const { transact, dataTable } = await import('../../shared/db/client');
    const { enqueue } = await import('../../shared/webhooks/queue');
    const { sweep } = await import('../../shared/webhooks/sweep');
    const e = recordEvent(early.partner_id, 'test', 'adventure.unavailable', exampleData('adventure.unavailable'));
    expect(await transact(dataTable.client, { event: e.item })).toBeUndefined();
    await enqueue([{ kind: 'fanout', pk: e.ref.pk, sk: e.ref.sk }]);
    // The stack's worker claimed attempt 1 and waits for the receiver.
    await until(
      () => received.filter((r) => r.event === e.event.id).length,
      (n) => n >= 1,
    );
    // A sweep that releases the claims of the run before this boot, as the boot sweep does, while that attempt is in flight.
    await sweep(new Date(), 0, { releaseClaims: true, claimedBefore: bootedBefore });
    await new Promise((r) => setTimeout(r, 6_000));
    expect(received.filter((r) => r.event === e.event.id)).toHaveLength(1);
    const deliveries = async () => (await call(port, 'GET', `/webhooks/deliveries?endpoint_id=${hook.body.id}`, early.test_key)).body.data;
    expect(await deliveries()).toMatchObject([{ status: 'DELIVERED', attempts: 1 }]);
    ack('POST /webhooks and its delivery, DELIVERED', async () => expect(await deliveries()).toMatchObject([{ status: 'DELIVERED', attempts: 1 }]));
  });

  let killed: { partner_id: string; test_key: string; number: string };
  it('a rerun of a stopped settlement run counts what it issued apart from what it completed', async () => {
    const { settlementStore } = await import('../../shared/settlements/store');
    const { transact, dataTable } = await import('../../shared/db/client');
    const { issueDraft } = await import('../../shared/settlements/issue');
    /** A booking's ledger line in `period` (what a confirmation commits), without the booking. */
    const line = async (partnerId: string, period: string) => {
      const at = `${period}-15T10:00:00.000Z`;
      const n = `PTB-RCV${randomUUID().slice(0, 4).toUpperCase()}`;
      await settlementStore.open(partnerId, 'test', period, randomUUID(), new Date(at));
      const items = {
        line: settlementStore.addLine(partnerId, 'test', period, {
          kind: 'BOOKING',
          booking_number: n,
          partner_reference: `REF-${n}`,
          travel_date: `${period}-20`,
          confirmed_at: at,
          adventure: 'Recovery test',
          status: 'CONFIRMED',
          amount_minor: 12_345,
          charged_minor: 12_345,
          refund_minor: 0,
          updated_at: at,
        }),
      };
      expect(await transact(dataTable.client, items)).toBeUndefined();
    };
    const p = await adminOn(port, ['partner:create', '--name', 'Rerun Bank']);
    const numbers = async () =>
      (await call(port, 'GET', '/settlements', p.test_key)).body.data.map((s: { number: string; status: string; links: { invoice_pdf: string | null } }) => [
        s.number,
        s.status,
        s.links.invoice_pdf !== null,
      ]);
    await line(p.partner_id, '2026-08');
    await line(p.partner_id, '2026-09');
    // A run killed right after the issue commit of August: numbered, no documents.
    expect((await issueDraft(p.partner_id, 'test', '2026-08')).settlement).toMatchObject({ number: 'TEST-PTS-000001', documents_status: 'PENDING' });
    const rerun = await adminOn(port, ['settlement:run', '--date', '2026-10-01', '--partner', p.partner_id, '--env', 'test']);
    expect(rerun).toMatchObject({ through_period: '2026-09', issued: 1, completed: 2, failed: 0 });
    expect(rerun.tenants[0].issued).toEqual(['TEST-PTS-000002']);
    expect(rerun.tenants[0].settlements.map((s: { number: string }) => s.number).sort()).toEqual(['TEST-PTS-000001', 'TEST-PTS-000002']);
    const issued = [
      ['TEST-PTS-000002', 'ISSUED', true],
      ['TEST-PTS-000001', 'ISSUED', true],
    ];
    expect(await numbers()).toEqual(issued);
    ack('settlement:run of Rerun Bank', async () => expect(await numbers()).toEqual(issued));

    // Another tenant's run killed after its issue commit, this time left as it is for the restart.
    const q = await adminOn(port, ['partner:create', '--name', 'Killed Run Bank']);
    const hook = await call(port, 'POST', '/webhooks', q.test_key, { url: await receiverUrl('/ok/settlement'), event_types: ['settlement.issued'] });
    expect(hook.status).toBe(201);
    ack('POST /webhooks of Killed Run Bank', async () => expect((await call(port, 'GET', `/webhooks/${hook.body.id}`, q.test_key)).status).toBe(200));
    await line(q.partner_id, '2026-09');
    const { settlement } = await issueDraft(q.partner_id, 'test', '2026-09');
    killed = { partner_id: q.partner_id, test_key: q.test_key, number: settlement!.number! };
    ack(`the issue of ${killed.number}`, async () =>
      expect((await call(port, 'GET', '/settlements', q.test_key)).body.data).toMatchObject([
        { number: killed.number, status: 'ISSUED', period_start: '2026-09-01' },
      ]),
    );
  });

  it('after a SIGKILL, with its PID reused by another process, `npm start` starts, keeps every acknowledged write and finishes the issued settlement', async () => {
    const runtime = readRuntime(stateDir, port)!;
    // DynamoDB Local acknowledges a transaction a few ms before it is durable: killed at once after the last
    // of 50 back-to-back TransactWriteItems it lost that one in every round, 10 ms later never (docs/operations/local-stack.md, "After a
    // crash"). The kill waits past that window, so that a loss found below is one the stack could have avoided.
    await new Promise((r) => setTimeout(r, 100));
    stack.child.kill('SIGKILL');
    process.kill(runtime.javaPid!, 'SIGKILL');
    await stack.exited;
    // The OS gave the dead stack's PID to another process.
    const squatter = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120_000)'], { stdio: 'ignore' });
    children.push(squatter);
    for (const f of [runtimeFile(stateDir, port), lockFile(stateDir)]) {
      writeFileSync(f, JSON.stringify({ ...JSON.parse(readFileSync(f, 'utf8')), pid: squatter.pid }));
    }
    stack = await ready(spawnStack(port));

    // Every write acknowledged before the kill, checked before anything is retried: a lost one fails here, by name.
    expect(acknowledged).toHaveLength(5);
    for (const a of acknowledged) {
      await a.check().catch((e: Error) => {
        throw new Error(`an acknowledged write was lost in the kill: ${a.what}\n${e.message}`);
      });
    }

    // The restart finished it: documents and settlement.issued, once.
    const [s] = (await call(port, 'GET', '/settlements', killed.test_key)).body.data;
    expect(stack.output()).toMatch(/Recovered\s+1 settlement\(s\) issued by the last run without their documents/);
    expect(s.links.invoice_pdf).not.toBeNull();
    expect(s.links.statement_csv).not.toBeNull();
    const got = await until(
      () => received.filter((r) => r.path === '/ok/settlement'),
      (r) => r.length >= 1,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(got.map((r) => r.type)).toEqual(['settlement.issued']);
    expect(received.filter((r) => r.path === '/ok/settlement')).toHaveLength(1);
  }, 180_000);
});
