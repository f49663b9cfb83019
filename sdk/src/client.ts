import { createHash, randomUUID } from 'node:crypto';
import { type SandboxClockHelpers, sandboxClock } from './clock';
import { PartnerApiError, PartnerNetworkError } from './errors';
import { OPERATIONS, RESOURCES, TRANSIENT_CODES } from './generated/operations';
import type { operations } from './generated/schema';
import { isLiveKey, keySecret, type SignatureVersion, signRequestVersion } from './signing';

export type OperationId = keyof typeof OPERATIONS & keyof operations;
type Op<K extends OperationId> = operations[K];
type IsNever<T> = [T] extends [never] ? true : false;

type PathParams<K extends OperationId> = Op<K>['parameters'] extends { path: infer P } ? NonNullable<P> : never;
type RawQuery<K extends OperationId> = Op<K>['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;
/** Query values as a caller writes them: lists (`status: ['CONFIRMED', 'COMPLETED']`) are sent comma-separated, numbers as text. */
export type Query<K extends OperationId> =
  IsNever<RawQuery<K>> extends true ? never : { [P in keyof RawQuery<K>]?: RawQuery<K>[P] | number | boolean | readonly string[] };
type RawBody<K extends OperationId> = NonNullable<Op<K>['requestBody']>;
export type Body<K extends OperationId> =
  IsNever<RawBody<K>> extends true ? never : RawBody<K> extends { content: { 'application/json': infer B } } ? B : never;

/** The document marks a body optional where the service takes none as {} (cancel, the test send, most test helpers). */
type BodyOptional<K extends OperationId> = undefined extends Op<K>['requestBody'] ? true : false;

type SuccessStatus = 200 | 201 | 202 | 204;
type ContentOf<R> = R extends { content: infer C } ? (C extends { 'application/json': infer J } ? J : Uint8Array) : undefined;
/** What an operation answers on success: its JSON body, the bytes of a file (PDF, CSV, HTML), or nothing. */
export type Result<K extends OperationId> = { [S in keyof Op<K>['responses'] & SuccessStatus]: ContentOf<Op<K>['responses'][S]> }[keyof Op<K>['responses'] &
  SuccessStatus];

export type CallArgs<K extends OperationId> = (IsNever<PathParams<K>> extends true ? { path?: never } : { path: PathParams<K> }) &
  (IsNever<RawQuery<K>> extends true ? { query?: never } : { query?: Query<K> }) &
  (IsNever<Body<K>> extends true ? { body?: never } : BodyOptional<K> extends true ? { body?: Body<K> } : { body: Body<K> }) & {
    /** Writes: the Idempotency-Key of this logical operation; a UUID v4 is generated when absent. Kept across retries. */
    idempotencyKey?: string;
    signal?: AbortSignal;
  };

type RequiredKeys<T> = { [P in keyof T]-?: undefined extends T[P] ? never : P }[keyof T];
type ArgsParam<K extends OperationId> = RequiredKeys<CallArgs<K>> extends never ? [args?: CallArgs<K>] : [args: CallArgs<K>];

type PaginatedId = { [K in OperationId]: (typeof OPERATIONS)[K]['paginated'] extends true ? K : never }[OperationId];
export type Item<K extends OperationId> = Result<K> extends { data: (infer I)[] } ? I : never;

/** An async iterator over every item of a list, page after page (keyset and offset lists alike). */
export interface PageIterator<T> extends AsyncIterable<T> {
  /** Every item, collected (mind the size of the list). */
  toArray(): Promise<T[]>;
}

type ResourceMethod<K extends OperationId> = K extends PaginatedId
  ? (typeof OPERATIONS)[K]['hasPathParams'] extends true
    ? (args: Omit<CallArgs<K>, 'query'> & { query?: Omit<Query<K>, 'cursor'> }) => PageIterator<Item<K>>
    : (query?: Omit<Query<K>, 'cursor'>) => PageIterator<Item<K>>
  : (...args: ArgsParam<K>) => Promise<Result<K>>;

type GeneratedResources = {
  [G in keyof typeof RESOURCES]: {
    [M in keyof (typeof RESOURCES)[G]]: (typeof RESOURCES)[G][M] extends OperationId ? ResourceMethod<(typeof RESOURCES)[G][M]> : never;
  };
};
/** The generated groups, and the hand-written faces over their operations: `testHelpers.clock` (sdk/src/clock.ts). */
export type Resources = GeneratedResources & { testHelpers: { clock: SandboxClockHelpers } };

export interface ClientOptions {
  /** `sk_test_...` (sandbox) or `sk_live_...` (production: writes are signed). */
  apiKey: string;
  /** Ends with /v1. Default: the local stack of `npm start`, http://127.0.0.1:3000/v1. */
  baseUrl?: string;
  /** Retries after a network error, a 429, a 5xx or a 409 that changed nothing (contention, the same key in progress); default 3. Nothing else is retried. */
  maxRetries?: number;
  /** Backoff: full jitter over min(maxDelayMs, baseDelayMs * 2^attempt); defaults 500 ms and 8 s. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** The longest Retry-After honoured before giving up the retry; default 60 s. */
  maxRetryAfterMs?: number;
  /** Per-attempt timeout; default 30 s. */
  timeoutMs?: number;
  /** Injected for tests; default the global fetch, setTimeout, Math.random, Date.now and crypto.randomUUID. */
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
  uuid?: () => string;
  userAgent?: string;
  /**
   * How live writes are signed (`X-Signature-Version`). Default 2: the signature also
   * covers the Idempotency-Key, so identical writes from any number of processes never
   * collide. 1 is the spec's signing, accepted once per signature: this client then moves
   * a second identical write of the same second to the next second (within this process only).
   */
  signatureVersion?: SignatureVersion;
}

const sleepFor = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const backoffDelay = (attempt: number, base: number, max: number, random: () => number) => Math.floor(random() * Math.min(max, base * 2 ** attempt));

/** Retry-After in seconds (or an HTTP date), as milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function encodeQuery(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    q.append(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * The partner API client. Every operation of the document is reachable as
 * `client.request(operationId, args)` and, grouped by tag, as a resource
 * method (`client.bookings.create({body})`, `client.bookings.list({status})`).
 */
export class PartnerClient {
  readonly baseUrl: string;
  readonly resources: Resources;
  private readonly signedAt = new Map<string, number>();
  private readonly opts: Required<Omit<ClientOptions, 'baseUrl' | 'userAgent'>> & { userAgent?: string };

  constructor(options: ClientOptions) {
    if (!/^sk_(live|test)_/.test(options.apiKey ?? '')) throw new Error('apiKey must be an sk_live_... or sk_test_... key');
    this.baseUrl = (options.baseUrl ?? 'http://127.0.0.1:3000/v1').replace(/\/+$/, '');
    this.opts = {
      maxRetries: 3,
      baseDelayMs: 500,
      maxDelayMs: 8000,
      maxRetryAfterMs: 60_000,
      timeoutMs: 30_000,
      fetch: (...a) => globalThis.fetch(...a),
      sleep: sleepFor,
      random: Math.random,
      now: Date.now,
      uuid: randomUUID,
      signatureVersion: 2,
      ...options,
    };
    const groups: Record<string, Record<string, unknown>> = {};
    for (const [group, methods] of Object.entries(RESOURCES)) {
      groups[group] = {};
      for (const [name, id] of Object.entries(methods)) {
        const op = OPERATIONS[id as OperationId];
        groups[group][name] = op.paginated
          ? (arg?: Record<string, unknown>) => this.paginate(id as PaginatedId, (op.hasPathParams ? arg : { query: arg }) as never)
          : (args?: unknown) => this.request(id as OperationId, args as never);
      }
    }
    groups.testHelpers!.clock = sandboxClock({
      get: (signal) => this.request('getSandboxClock', { signal }),
      advance: (to, idempotencyKey, signal) => this.request('advanceSandboxClock', { body: { to }, idempotencyKey, signal }),
      sleep: (ms) => this.opts.sleep(ms),
      now: () => this.opts.now(),
    });
    this.resources = groups as Resources;
    Object.assign(this, groups);
  }

  /**
   * Version 1: the service accepts a signature once (a second use under another
   * Idempotency-Key is 401 auth.signature.replayed), so two identical writes within one
   * second are signed with distinct timestamps: the later one moves to the next second.
   * Version 2 signs the Idempotency-Key: the time is now.
   */
  private signingTime(request: string): string {
    const now = Math.floor(this.opts.now() / 1000);
    if (this.opts.signatureVersion === 2) return String(now);
    const id = createHash('sha256').update(request).digest('base64');
    const ts = Math.max(now, (this.signedAt.get(id) ?? 0) + 1);
    this.signedAt.set(id, ts);
    if (this.signedAt.size > 1000) for (const [k, t] of this.signedAt) if (t < now) this.signedAt.delete(k);
    return String(ts);
  }

  /** Calls one operation; resolves with its success body, rejects with PartnerApiError or PartnerNetworkError. */
  async request<K extends OperationId>(operationId: K, ...[args]: ArgsParam<K>): Promise<Result<K>> {
    const op = OPERATIONS[operationId];
    if (!op) throw new Error(`unknown operation ${String(operationId)}`);
    const a = (args ?? {}) as { path?: Record<string, string>; query?: Record<string, unknown>; body?: unknown; idempotencyKey?: string; signal?: AbortSignal };
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const v = a.path?.[name];
      if (v === undefined) throw new Error(`${String(operationId)}: path parameter ${name} is missing`);
      return encodeURIComponent(String(v));
    });
    const url = `${this.baseUrl}${path}${encodeQuery(a.query)}`;
    const pathWithQuery = new URL(url).pathname + new URL(url).search;
    // The exact bytes sent, signed, and re-sent unchanged on every retry.
    const body = a.body === undefined ? '' : JSON.stringify(a.body);
    const headers: Record<string, string> = { authorization: `Bearer ${this.opts.apiKey}`, accept: 'application/json' };
    if (this.opts.userAgent) headers['user-agent'] = this.opts.userAgent;
    if (body) headers['content-type'] = 'application/json';
    if (op.write) headers['idempotency-key'] = a.idempotencyKey ?? this.opts.uuid();
    const live = op.write && isLiveKey(this.opts.apiKey);

    for (let attempt = 0; ; attempt++) {
      if (live) {
        // A new timestamp for each attempt; the same Idempotency-Key makes it the same request to the service.
        const ts = this.signingTime(`${op.method}\n${pathWithQuery}\n${body}`);
        const version = this.opts.signatureVersion;
        if (version === 2) headers['x-signature-version'] = '2';
        headers['x-timestamp'] = ts;
        headers['x-signature'] = signRequestVersion(
          version,
          keySecret(this.opts.apiKey),
          {
            timestamp: ts,
            method: op.method,
            pathWithQuery,
            idempotencyKey: headers['idempotency-key'],
          },
          body,
        );
      }
      const retriesLeft = attempt < this.opts.maxRetries;
      let res: Response;
      try {
        const timeout = AbortSignal.timeout(this.opts.timeoutMs);
        res = await this.opts.fetch(url, {
          method: op.method,
          headers,
          body: body || undefined,
          signal: a.signal ? AbortSignal.any([a.signal, timeout]) : timeout,
        });
      } catch (e) {
        if (a.signal?.aborted || !retriesLeft) throw new PartnerNetworkError(`${String(operationId)}: ${(e as Error).message}`, operationId, e);
        await this.opts.sleep(backoffDelay(attempt, this.opts.baseDelayMs, this.opts.maxDelayMs, this.opts.random));
        continue;
      }
      // A replayed answer is the stored one of this very key: sending it again would only replay it again.
      const replayed = res.headers.get('idempotent-replayed') === 'true';
      if (retriesLeft && !replayed && (res.status === 429 || res.status >= 500 || (res.status === 409 && (await isTransient(res))))) {
        const after = retryAfterMs(res.headers.get('retry-after'), this.opts.now());
        if (after === undefined || after <= this.opts.maxRetryAfterMs) {
          await res.body?.cancel().catch(() => undefined);
          await this.opts.sleep(after ?? backoffDelay(attempt, this.opts.baseDelayMs, this.opts.maxDelayMs, this.opts.random));
          continue;
        }
      }
      if (!res.ok) throw await toError(String(operationId), res);
      if (op.response === 'json') return (await res.json()) as Result<K>;
      if (op.response === 'bytes') return new Uint8Array(await res.arrayBuffer()) as Result<K>;
      return undefined as Result<K>;
    }
  }

  /** Iterates every item of a list operation, following meta.next_cursor. */
  paginate<K extends PaginatedId>(operationId: K, args?: CallArgs<K>): PageIterator<Item<K>> {
    const self = this;
    async function* items() {
      let cursor: string | undefined;
      do {
        const a = { ...args, query: { ...(args?.query as object), ...(cursor ? { cursor } : {}) } } as never;
        const page = (await self.request(operationId, a)) as unknown as { data: Item<K>[]; meta: { next_cursor?: string | null } };
        yield* page.data;
        cursor = page.meta.next_cursor ?? undefined;
      } while (cursor);
    }
    return {
      [Symbol.asyncIterator]: items,
      async toArray() {
        const out: Item<K>[] = [];
        for await (const x of items()) out.push(x);
        return out;
      },
    };
  }
}

async function toError(operation: string, res: Response): Promise<PartnerApiError> {
  const text = await res.text().catch(() => '');
  let body: { code?: string; message?: string; request_id?: string; details?: Record<string, unknown> } = {};
  try {
    body = JSON.parse(text);
  } catch {
    // Not the error shape (a gateway's own answer): keep what there is.
  }
  return new PartnerApiError({
    status: res.status,
    code: body.code ?? `http.${res.status}`,
    message: body.message ?? (text.slice(0, 200) || res.statusText),
    // API Gateway's own answers carry its request id (apigw-requestid) instead of the service's.
    request_id: body.request_id ?? res.headers.get('x-request-id') ?? res.headers.get('apigw-requestid') ?? '',
    details: body.details,
    operation,
    headers: res.headers,
  }) as PartnerApiError;
}

/** A client with every resource group as a property: `client.bookings.list(...)`. */
export type Client = PartnerClient & Resources;

export function createClient(options: ClientOptions): Client {
  return new PartnerClient(options) as Client;
}

/** A 409 that changed nothing (contention, the same key still running): sending it again with the same key can succeed. */
async function isTransient(res: Response): Promise<boolean> {
  const body = (await res
    .clone()
    .json()
    .catch(() => undefined)) as { code?: unknown } | undefined;
  return typeof body?.code === 'string' && (TRANSIENT_CODES as readonly string[]).includes(body.code);
}
