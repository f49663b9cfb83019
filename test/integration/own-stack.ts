import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { JWK } from 'jose';
import { expect, inject } from 'vitest';
import { readRuntime } from '../../infra/local/runtime-info';
import { freePort } from '../../infra/local/services';

const ROOT = resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/**
 * How long a boot may take before it counts as hung: a guard against a hang, not a performance bound. A first boot
 * (the catalog's import included) takes 10-25 s on a quiet 2-core machine, and went past 150 s with two busy loops
 * beside the tests (issue 42).
 */
export const BOOT_GUARD_MS = 600_000;
/** The timeout of a `beforeAll` that starts an own stack: the boot's guard, and time for the hook's other calls. */
export const BOOT_HOOK_MS = BOOT_GUARD_MS + 120_000;

/**
 * A local stack of a test file's own, started as `npm start` starts one, with the environment of a mode the
 * shared stack runs without (the conflict-faithful DynamoDB, the SES sandbox). Reached as an operator reaches
 * it: HTTP on its port, the admin CLI with its PORT and LOCAL_STATE_DIR.
 */
export class OwnStack {
  /** What the stack printed so far (its terminal: the runtime's lines and the functions' WARN and above). */
  private printed = '';

  private child!: ChildProcess;
  /** Resolves with the exit code of the run started last (null when a signal ended it). */
  exited!: Promise<number | null>;

  private constructor(
    readonly name: string,
    readonly port: number,
    readonly stateDir: string,
    private readonly env: Record<string, string>,
  ) {}

  /** What the run started last printed so far. */
  output(): string {
    return this.printed;
  }

  get base() {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  static async start(name: string, env: Record<string, string>): Promise<OwnStack> {
    const stack = new OwnStack(name, await freePort(), mkdtempSync(join(tmpdir(), `ptbs-${name}-`)), env);
    await stack.launch(['--reset']).catch(async (e: unknown) => {
      await stack.stop();
      throw e;
    });
    return stack;
  }

  /** `npm start` on the stack's port and state directory, until it says it is ready. */
  private async launch(args: string[]) {
    this.printed = '';
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', ...args], {
      cwd: ROOT,
      // A dozen adventures are enough for one file's tests, and import in a quarter of the time.
      env: {
        ...process.env,
        PORT: String(this.port),
        LOCAL_STATE_DIR: this.stateDir,
        WEBHOOK_WAIT_SCALE: '0.0001',
        LOCAL_CATALOG_ADVENTURES: '12',
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exited = new Promise((r) => child.once('exit', (code) => r(code)));
    await new Promise<void>((ready, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name} stack not ready in ${BOOT_GUARD_MS / 1000} s:\n${this.printed}`)), BOOT_GUARD_MS);
      child.stdout!.on('data', (d: Buffer) => {
        this.printed += d.toString();
        if (this.printed.includes('Ready in')) {
          clearTimeout(timer);
          ready();
        }
      });
      child.stderr!.on('data', (d: Buffer) => (this.printed += d.toString()));
      child.once('exit', (code) => reject(new Error(`${this.name} stack exited with ${code}:\n${this.printed}`)));
    }).catch((e: unknown) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      throw e;
    });
  }

  /**
   * A crash: SIGKILL to the stack's node process and to its DynamoDB Local, as docs/operations/local-stack.md's
   * "After a crash" describes (nothing of the run gets to clean up).
   */
  async crash() {
    const javaPid = readRuntime(this.stateDir, this.port)?.javaPid;
    this.child.kill('SIGKILL');
    if (javaPid) process.kill(javaPid, 'SIGKILL');
    await this.exited;
  }

  /**
   * `npm start` again after a crash or a stop: the same port and state directory, no reset. The port the dead run
   * listened on came from the ephemeral range, and the OS may have lent it meanwhile to an outgoing connection
   * (seen twice in 6 restarts on a loaded machine: EADDRINUSE): then it is tried again once that connection is gone.
   */
  async restart() {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.launch([]);
      } catch (e) {
        if (attempt >= 5 || !(e as Error).message.includes('EADDRINUSE')) throw e;
        await this.exited;
        await new Promise((r) => setTimeout(r, 3_000));
      }
    }
  }

  /** The environment the running stack gives its functions (endpoints, queue URLs), from its runtime file. */
  runtimeEnv(): Record<string, string> {
    return readRuntime(this.stateDir, this.port)!.env;
  }

  async stop() {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      await Promise.race([this.exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (this.child.exitCode === null) this.child.kill('SIGKILL');
    }
    this.handOverIam();
    rmSync(this.stateDir, { recursive: true, force: true });
  }

  /**
   * What this stack's IAM layer recorded joins the shared stack's, so the run's least-privilege report counts
   * its calls and a call it refused fails the run too (test/integration/global-setup.ts).
   */
  private handOverIam() {
    const from = join(this.stateDir, 'iam');
    if (!existsSync(from)) return;
    const to = join(inject('stateDir'), 'iam');
    mkdirSync(to, { recursive: true });
    const tag = `${Date.now()}${process.pid}`;
    for (const f of readdirSync(from)) {
      const m = /^(usage|stats)-(\d+)\.json$/.exec(f);
      if (m) copyFileSync(join(from, f), join(to, `${m[1]}-${tag}${m[2]}.json`));
    }
    if (existsSync(join(from, 'denies.jsonl'))) appendFileSync(join(to, 'denies.jsonl'), readFileSync(join(from, 'denies.jsonl')));
  }

  /** The admin CLI against this stack, `--json`. */
  async admin(args: string[]) {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args, '--json'], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(this.port), LOCAL_STATE_DIR: this.stateDir },
    });
    return JSON.parse(stdout);
  }

  /** One API call; a write gets a fresh Idempotency-Key unless `idempotencyKey` names the one to retry with. */
  async call(method: string, path: string, key: string, body?: unknown, idempotencyKey: string = randomUUID()) {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': idempotencyKey }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  }

  /** A new partner with a sandbox payment key, and a FLEXIBLE pack of its sandbox catalog for single adult travelers. */
  async sandboxPartner(name: string) {
    const p = await this.admin(['partner:create', '--name', `${name} ${randomUUID().slice(0, 6)}`]);
    const jwk = (await this.admin(['payment-key:generate', '--partner', p.partner_id, '--env', 'test'])).private_jwk as JWK;
    const listing = await this.call('GET', '/adventures?limit=100', p.test_key);
    expect(listing.status, JSON.stringify(listing.body)).toBe(200);
    const list = listing.body.data as { slug: string; bookable: boolean }[];
    for (const a of list.filter((x) => x.bookable)) {
      const pack = (await this.call('GET', `/adventures/${a.slug}`, p.test_key)).body.rate_packs.find(
        (rp: any) => rp.booking_mode === 'FLEXIBLE' && rp.min_travelers === 1 && rp.schedule.weekdays.length === 7 && rp.booking_window_days > 45,
      );
      if (pack)
        return { key: p.test_key as string, partnerId: p.partner_id as string, jwk, pack: pack as { id: string; schedule: { daily_capacity: number } } };
    }
    throw new Error('no FLEXIBLE pack for single travelers in the sandbox catalog');
  }
}
