import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

export const baseUrl = () => inject('baseUrl');

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function api<T = any>(
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${baseUrl()}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** Runs the admin CLI against the test stack, as an operator would. */
export async function admin(args: string[]): Promise<{ code: number; stdout: string; stderr: string; json?: any }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(inject('port')), LOCAL_STATE_DIR: inject('stateDir') },
    });
    return { code: 0, stdout, stderr, json: args.includes('--json') ? JSON.parse(stdout) : undefined };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

export async function newPartner(name = `Bank ${Math.random().toString(36).slice(2, 8)}`) {
  const r = await admin(['partner:create', '--name', name, '--json']);
  if (r.code !== 0) throw new Error(`partner:create failed: ${r.stderr}`);
  return r.json as { partner_id: string; member_id: string; live_key: string; test_key: string; live_key_id: string; test_key_id: string };
}
