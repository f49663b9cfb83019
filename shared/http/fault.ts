import * as z from 'zod';
import type { Seal } from '../db/client';
import { loadConfig } from '../kernel/config';
import { headerValue } from './headers';
import type { ApiEvent } from './types';

/**
 * Fault injection for the crash tests, never enabled in AWS: with
 * FAULT_INJECTION=on (set only by the test runs of the local stack), a
 * request carrying `X-Fault-Inject: after-commit` dies after its operation
 * committed and before its response leaves, as a worker killed at that moment
 * would: no response and no post-operation write (a success's idempotency
 * record and audit line committed with the operation). `X-Fault-Inject: at-commit`
 * fails the operation as it builds its commit, as a throttled transaction would:
 * a 500 with nothing of the operation's change written.
 *
 * Two more provoke API Gateway's quotas on the local gateway: `stall-after-commit=MS`
 * holds a write's answer MS milliseconds after its commit (past the integration
 * timeout, the client gets the gateway's 503 while the operation stands), and
 * `answer-bytes=N` pads the route's answer with JSON whitespace to N bytes as Lambda
 * counts it (its JSON), to meet the 6 MB answer quota from either side.
 *
 * One reaches past the request: `request-log-fails=N` marks the request's log line, and the request log's
 * consumer fails the first N deliveries that hold it, as a refused write would, so that Lambda's retries of an
 * asynchronous invocation and its on-failure queue can be seen at work (shared/request-logs/ingest.ts).
 */
const faultConfig = z.object({ FAULT_INJECTION: z.enum(['on', 'off']).default('off') });

export class SimulatedCrash extends Error {
  constructor() {
    super('simulated crash after commit (X-Fault-Inject)');
    this.name = 'SimulatedCrash';
  }
}

const injected = (event: ApiEvent, fault: 'after-commit' | 'at-commit') => faultInjectionOn() && headerValue(event, 'x-fault-inject') === fault;

/** Whether this process injects the faults asked for (the local stack's test runs only). */
export const faultInjectionOn = () => loadConfig(faultConfig).FAULT_INJECTION === 'on';

/** The number of a `name=N` fault, when the request injects it. */
function injectedNumber(event: ApiEvent, fault: 'stall-after-commit' | 'answer-bytes' | 'request-log-fails'): number | undefined {
  if (!faultInjectionOn()) return undefined;
  const m = /^([a-z-]+)=(\d{1,9})$/.exec(headerValue(event, 'x-fault-inject') ?? '');
  return m?.[1] === fault ? Number(m[2]) : undefined;
}

export function crashAfterCommit(event: ApiEvent): boolean {
  return injected(event, 'after-commit');
}

/** The route's seal, or one that throws DynamoDB's throttling error when the operation asks for its commit's items. */
export function failAtCommit<T>(event: ApiEvent, seal: Seal<T>): Seal<T> {
  if (!injected(event, 'at-commit')) return seal;
  return {
    items: () => {
      throw Object.assign(new Error('simulated throttling at commit (X-Fault-Inject)'), { name: 'ThrottlingException' });
    },
  };
}

/** Holds the answer of a write that committed, when the request asks for it (`stall-after-commit=MS`). */
export async function stallAfterCommit(event: ApiEvent): Promise<void> {
  const ms = injectedNumber(event, 'stall-after-commit');
  if (ms) await new Promise((resolve) => setTimeout(resolve, ms));
}

/** The answer padded with trailing JSON whitespace to `answer-bytes=N` bytes of JSON (a text body only; never shortened). */
export function padAnswer<R extends { body?: string; isBase64Encoded?: boolean }>(event: ApiEvent, result: R): R {
  const target = injectedNumber(event, 'answer-bytes');
  if (target === undefined || result.isBase64Encoded || typeof result.body !== 'string') return result;
  // Each space adds one byte to the body and to the answer's JSON alike.
  const missing = target - Buffer.byteLength(JSON.stringify(result));
  return missing > 0 ? { ...result, body: result.body + ' '.repeat(missing) } : result;
}

/** The field of a request log line that carries `request-log-fails=N` to the consumer. */
export const REQUEST_LOG_FAULT_FIELD = 'fault_request_log_fails';

/** The field to add to the request's log line when it injects `request-log-fails=N`. */
export function requestLogFault(event: ApiEvent): { [REQUEST_LOG_FAULT_FIELD]?: number } {
  const n = injectedNumber(event, 'request-log-fails');
  return n ? { [REQUEST_LOG_FAULT_FIELD]: n } : {};
}
