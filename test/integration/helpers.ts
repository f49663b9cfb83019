import { execFile, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, inject } from 'vitest';
import { SETTLED_PATH } from '../../infra/local/gsi-lag';
import { functionLogFile } from '../../infra/local/logs';
import { checkContract } from './contract';

const ROOT = resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

export const baseUrl = () => inject('baseUrl');

export type LogLine = Record<string, any>;

/** The local stack's function log (its CloudWatch Logs): every line its handlers wrote. */
export const logText = () => readFileSync(functionLogFile(inject('stateDir'), inject('port')), 'utf8');
export const logLines = (): LogLine[] =>
  logText()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

/**
 * Waits out the indexes' lag, as an operator's command a moment after a partner's write would not: what a command
 * finds through an index (the quotes on a slot, an event's subscribers, the trips of a date) is what the index
 * showed, as in AWS. The GSI lag layer answers its settled path once every write acknowledged before the call is in
 * its indexes (LOCAL_GSI_LAG_MS after the last one, longer on a loaded machine, which a sleep of the lag fell short
 * of). The bound guards a hang.
 */
export async function pastIndexLag() {
  if (inject('gsiLagMs') === 0) return;
  const res = await fetch(`${stackRuntime().env.AWS_ENDPOINT_URL_DYNAMODB}${SETTLED_PATH}`, { signal: AbortSignal.timeout(120_000) });
  if (res.status !== 200) throw new Error(`the GSI lag layer did not settle: ${res.status} ${await res.text()}`);
}

/** `fn()` (awaited) once `ok` holds of it, or its last value after `ms`. */
export const until = async <T>(fn: () => T | Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** The log line a route's function writes as it answers (`request`, with its status), by request id. */
export const requestLine = (requestId: string) => logLines().find((l) => l.message === 'request' && l.request_id === requestId);

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ApiOptions {
  key?: string;
  body?: unknown;
  /** The body exactly as sent: a string (UTF-8) or bytes. */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Send from this loopback address (127.0.0.2 ...), as another client would: per-address counters apart. */
  localAddress?: string;
}

/** One HTTP/1.1 request from a chosen local address (fetch cannot choose one). */
function fromAddress(url: string, method: string, headers: Record<string, string>, body: string | Uint8Array | undefined, localAddress: string) {
  return new Promise<{ status: number; headers: Headers; text: string }>((resolvePromise, reject) => {
    const req = httpRequest(url, { method, headers, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
        resolvePromise({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function api<T = any>(method: string, path: string, opts: ApiOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | Uint8Array | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const url = `${baseUrl()}${path}`;
  const res = opts.localAddress ? await fromAddress(url, method, headers, body, opts.localAddress) : await fetch(url, { method, headers, body });
  const text = 'text' in res && typeof res.text === 'string' ? res.text : await (res as Response).text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  checkContract(method, path, res.status, res.headers, parsed);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

type AdminResult = { code: number; stdout: string; stderr: string; json?: any };
const adminEnv = () => ({ ...process.env, PORT: String(inject('port')), LOCAL_STATE_DIR: inject('stateDir') });
const withJson = (args: string[], r: Omit<AdminResult, 'json'>): AdminResult =>
  r.code === 0 && args.includes('--json') ? { ...r, json: JSON.parse(r.stdout) } : r;

/** Runs the admin CLI against the test stack, as an operator would: the same code as `npm run -s admin`, in this file's CLI process. */
export async function admin(args: string[]): Promise<AdminResult> {
  return withJson(args, await adminServer().run(args));
}

/** The admin CLI in a process of its own, for races between two operators' commands. */
export async function adminProcess(args: string[]): Promise<AdminResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { cwd: ROOT, env: adminEnv() });
    return withJson(args, { code: 0, stdout, stderr });
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** The test file's long-lived CLI (admin-process.ts): forked at the first command, gone with the file. */
let server: { run(args: string[]): Promise<Omit<AdminResult, 'json'>>; close(): Promise<void> } | undefined;
function adminServer() {
  if (server) return server;
  const child = fork(resolve(import.meta.dirname, 'admin-process.ts'), [], {
    cwd: ROOT,
    env: adminEnv(),
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const pending = new Map<number, (r: Omit<AdminResult, 'json'>) => void>();
  const exited = new Promise<void>((done) =>
    child.once('exit', (code) => {
      server = undefined;
      for (const answer of pending.values()) answer({ code: code ?? 1, stdout: '', stderr: `the admin CLI process exited (${code}):\n${stderr}` });
      done();
    }),
  );
  const ready = new Promise<void>((r) => child.once('message', () => r()));
  child.on('message', (m: { id?: number; code: number; stdout: string; stderr: string }) => {
    if (m.id === undefined) return;
    pending.get(m.id)?.({ code: m.code, stdout: m.stdout, stderr: m.stderr });
    pending.delete(m.id);
  });
  child.unref();
  (child.channel as { unref?: () => void } | undefined)?.unref?.();
  let next = 0;
  server = {
    run: async (args) => {
      await ready;
      const id = ++next;
      return new Promise((answer) => {
        pending.set(id, answer);
        child.send({ id, args });
      });
    },
    close: async () => {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
  return server;
}
// The CLI writes the operator's IAM usage when it exits: before the run's least-privilege report reads it.
afterAll(async () => server?.close());

export async function newPartner(name = `Bank ${Math.random().toString(36).slice(2, 8)}`) {
  const r = await admin(['partner:create', '--name', name, '--json']);
  if (r.code !== 0) throw new Error(`partner:create failed: ${r.stderr}`);
  return r.json as { partner_id: string; member_id: string; live_key: string; test_key: string; live_key_id: string; test_key_id: string };
}

export { sign } from '../../shared/platform/signature';

import { randomUUID } from 'node:crypto';
import { sign as signRequest } from '../../shared/platform/signature';

/** The secret part of a key: what live writes sign with. */
export const secretOf = (key: string) => key.split('_')[3]!;

/**
 * The service refuses an accepted signature sent again under another Idempotency-Key
 * (auth.signature.replayed), so two identical writes within one second must not share a
 * timestamp: a client moves the second one to the next second, as the SDK does.
 */
const lastSignedAt = new Map<string, number>();
function freshTimestamp(key: string, method: string, pathWithQuery: string, body: string | Uint8Array): number {
  const id = `${key}\n${method}\n${pathWithQuery}\n${Buffer.from(body).toString('base64')}`;
  const ts = Math.max(Math.floor(Date.now() / 1000), (lastSignedAt.get(id) ?? 0) + 1);
  lastSignedAt.set(id, ts);
  return ts;
}

export function signatureHeaders(
  key: string,
  method: string,
  pathWithQuery: string,
  body: string | Uint8Array,
  ts = freshTimestamp(key, method, pathWithQuery, body),
) {
  return { 'x-timestamp': String(ts), 'x-signature': signRequest(secretOf(key), String(ts), method, `/v1${pathWithQuery}`, body) };
}

/** A write as a well-behaved client sends it: JSON body, Idempotency-Key, and a signature with live keys. */
export async function write<T = any>(
  method: string,
  path: string,
  key: string,
  body?: unknown,
  opts: { idempotencyKey?: string; headers?: Record<string, string> } = {},
) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const headers: Record<string, string> = { 'idempotency-key': opts.idempotencyKey ?? randomUUID(), ...opts.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (key.startsWith('sk_live_')) Object.assign(headers, signatureHeaders(key, method, path, raw));
  return api<T>(method, path, { key, rawBody: raw || undefined, headers });
}

/** A partner with one extra member of the given role and a key for it in each environment. */
export async function memberWithRole(role: string, partner?: Awaited<ReturnType<typeof newPartner>>) {
  const p = partner ?? (await newPartner());
  const m = await admin([
    'member:add',
    '--partner',
    p.partner_id,
    '--email',
    `${role.toLowerCase()}-${randomUUID().slice(0, 8)}@bank.example`,
    '--role',
    role,
    '--json',
  ]);
  // The two keys are independent: both CLI runs at once.
  const issue = (env: 'test' | 'live') => admin(['key:issue', '--partner', p.partner_id, '--member', m.json.member_id, '--env', env, '--json']);
  const [test, live] = await Promise.all([issue('test'), issue('live')]);
  return { partner: p, memberId: m.json.member_id as string, testKey: test.json.key as string, liveKey: live.json.key as string };
}

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { readRuntime } from '../../infra/local/runtime-info';
import { webhookKeys } from '../../shared/webhooks/keys';

/** The test stack's runtime file: its console's address, the endpoints of its servers. */
export const stackRuntime = () => readRuntime(inject('stateDir'), inject('port'))!;

/** Direct access to the test stack's DynamoDB, for tests that stage what HTTP cannot (a dead worker, an aged record). */
export function testDb() {
  const runtime = stackRuntime();
  const ddb = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint: runtime.env.AWS_ENDPOINT_URL_DYNAMODB,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  return { ddb, accessTable: runtime.env.ACCESS_TABLE!, dataTable: runtime.env.DATA_TABLE! };
}

/**
 * A retry received before it is due, as AWS's Scheduler may send one (within the minute of its time): delivery
 * `deliveryId` made PENDING after one attempt, its next one due at `due` (on its clock, for a sandbox), out of the
 * sweeper's index; and the message of attempt 2 put on the webhook queue now, as the schedule puts it.
 */
export async function stageEarlyRetry(deliveryId: string, due: Date) {
  const { ddb, dataTable } = testDb();
  await ddb.send(
    new UpdateCommand({
      TableName: dataTable,
      Key: webhookKeys.delivery(deliveryId),
      UpdateExpression: 'SET #s = :p, attempts = :one, next_attempt_at = :due REMOVE claimed_attempt, claim_until, claimed_at, gsi2pk, gsi2sk',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':p': 'PENDING', ':one': 1, ':due': due.toISOString() },
    }),
  );
  const env = stackRuntime().env;
  const sqs = new SQSClient({ region: 'us-east-1', endpoint: env.AWS_ENDPOINT_URL_SQS, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  await sqs.send(
    new SendMessageCommand({ QueueUrl: env.WEBHOOK_QUEUE_URL, MessageBody: JSON.stringify({ kind: 'attempt', delivery_id: deliveryId, attempt: 2 }) }),
  );
}

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedEvent {
  id: string;
  type: string;
  test: boolean;
  data: Record<string, unknown>;
}

/** A webhook receiver on a free local port that answers 200 and keeps every event it is sent, in order. */
export async function startEventReceiver(path: string) {
  const received: ReceivedEvent[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      received.push(JSON.parse(raw));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}${path}`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
