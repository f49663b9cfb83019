import type { CallArgs, OperationId, Result } from '../../sdk/src/client';
import { OPERATIONS } from '../../sdk/src/generated/operations';
import { config, unreachable } from './config';
import { accessToken, type Environment, endSession, SESSION_ENDED, SessionEndedError } from './session';

/** An error answer of the API: the spec's {code, message, request_id, details?}. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface RequestArgs {
  query?: Record<string, string | number | boolean | readonly string[] | undefined | null>;
  body?: unknown;
  /** Writes: the Idempotency-Key of this logical action (the same one when the user retries it). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/**
 * Called on 403 auth.session.reauthentication_required (a live write long after the sign-in):
 * resolves once the member has signed in again (password and code), rejects if they gave up.
 */
type Reauthenticator = (refusal: ApiError) => Promise<void>;
let reauthenticate: Reauthenticator | undefined;
export const setReauthenticator = (fn: Reauthenticator | undefined) => {
  reauthenticate = fn;
};

export const newIdempotencyKey = () => crypto.randomUUID();

function queryString(query: RequestArgs['query']): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) {
      if (v.length) q.append(k, v.join(','));
    } else q.append(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

async function errorOf(res: Response): Promise<ApiError> {
  const requestId = res.headers.get('x-request-id');
  let body: { code?: unknown; message?: unknown; request_id?: unknown; details?: unknown } = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // not the spec's shape (a gateway's own answer): the status speaks
  }
  const message = typeof body.message === 'string' && body.message ? body.message : `The API answered HTTP ${res.status}.`;
  return new ApiError(
    res.status,
    typeof body.code === 'string' ? body.code : `http.${res.status}`,
    message,
    typeof body.request_id === 'string' ? body.request_id : requestId,
    body.details,
  );
}

/**
 * One API call as the signed-in member: Bearer access token, X-Environment, and on writes
 * Idempotency-Key and a JSON body. A 401 ends the session; a live write refused for an old
 * sign-in asks the member to sign in again, then is sent again with the same Idempotency-Key.
 */
export async function send(method: string, path: string, env: Environment, args: RequestArgs = {}): Promise<Response> {
  const write = method !== 'GET' && method !== 'HEAD';
  const key = write ? (args.idempotencyKey ?? newIdempotencyKey()) : undefined;
  const url = `${config().apiBaseUrl}${path}${queryString(args.query)}`;
  for (let reauthenticated = false; ; reauthenticated = true) {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${await accessToken()}`,
      'X-Environment': env,
      Accept: 'application/json',
    };
    if (key) headers['Idempotency-Key'] = key;
    let body: string | undefined;
    if (write && args.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(args.body);
    }
    let res: Response;
    try {
      res = await fetch(url, { method, headers, body, signal: args.signal, credentials: 'omit', cache: 'no-store' });
    } catch (e) {
      if (args.signal?.aborted) throw e;
      throw new ApiError(0, 'network', await unreachable('The API'), null);
    }
    if (res.ok) return res;
    const err = await errorOf(res);
    if (res.status === 401) {
      const detail = err.code === 'auth.session.invalid' ? err.message : undefined;
      endSession(SESSION_ENDED, detail);
      throw new SessionEndedError(SESSION_ENDED);
    }
    if (res.status === 403 && err.code === 'auth.session.reauthentication_required' && reauthenticate && !reauthenticated) {
      await reauthenticate(err);
      continue;
    }
    throw err;
  }
}

/** A JSON call (undefined for a 204). */
export async function request<T>(method: string, path: string, env: Environment, args: RequestArgs = {}): Promise<T> {
  const res = await send(method, path, env, args);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** A typed call of one operation of the OpenAPI document, by its operationId (the SDK's types and operation table). */
export function call<K extends OperationId>(env: Environment, id: K, args?: CallArgs<K>): Promise<Result<K>> {
  const op = OPERATIONS[id];
  const a = (args ?? {}) as { path?: Record<string, string>; query?: RequestArgs['query']; body?: unknown; idempotencyKey?: string; signal?: AbortSignal };
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(a.path?.[name] ?? '')));
  return request<Result<K>>(op.method, path, env, a);
}

/**
 * A file the API answers as an attachment, with the name it gives in Content-Disposition. A document too large to
 * answer inline is a 303 to a presigned S3 URL, which fetch follows: the browser sends that request with
 * `Origin: null` (redirected from the API's origin to a third one) and without the Authorization header, and the
 * bucket's CORS rule lets the console read the answer and its Content-Disposition (shared/buckets.ts).
 */
export async function download(env: Environment, path: string, fallbackName: string): Promise<{ blob: Blob; filename: string }> {
  const res = await send('GET', path, env);
  const cd = res.headers.get('content-disposition') ?? '';
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(cd);
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(cd);
  let filename = fallbackName;
  if (star?.[1]) filename = decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
  else if (plain?.[1]) filename = plain[1].trim();
  return { blob: await res.blob(), filename };
}

/** Saves a blob under its name: an object URL clicked as a download, then released. */
export function saveBlob(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
