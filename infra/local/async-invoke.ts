import { randomUUID } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { ASYNC_INVOCATIONS, ASYNC_RETRY_ATTEMPTS } from '../../shared/async-invocations';
import { type IamModel, LOCAL_ACCOUNT, LOCAL_REGION } from './iam/model';
import { functionPrincipal, runAs } from './iam/principal';
import { invoke, lambdaContext } from './lambda';
import type { LocalQueue } from './provision';

/**
 * Lambda's asynchronous invocation, for the local runtime: what AWS services invoke that way (CloudWatch Logs'
 * subscription filters, EventBridge's rules; shared/async-invocations.ts) is handed to `invoke`, which returns
 * at once as Lambda answers 202, and runs the function in the background: on an error, again after 1 minute,
 * then after 2 more (the function's retry attempts), with the same request id; an event older than its
 * maximum age when its turn comes is not run again. Then, as Lambda does, the invocation record goes to the
 * function's on-failure destination, an SQS queue of the local server, sent with the function's execution role
 * (the IAM layer authorizes it). The settings are the template's EventInvokeConfig.
 * (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html,
 * https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html)
 */

/** Lambda's waits before the second and the third attempt. */
export const RETRY_WAITS_MS = [60_000, 120_000] as const;
/** Lambda's maximum event age when the function has none of its own. */
const DEFAULT_MAX_EVENT_AGE_SECONDS = 6 * 3600;

/** `LAMBDA_ASYNC_WAIT_SCALE` (0 to 1, default 1) shortens the waits between attempts (the tests run them in milliseconds). */
const settingsSchema = z.object({ LAMBDA_ASYNC_WAIT_SCALE: z.coerce.number().positive().max(1).default(1) });
export const asyncWaitScale = (env: NodeJS.ProcessEnv = process.env) => settingsSchema.parse(env).LAMBDA_ASYNC_WAIT_SCALE;

/** How Lambda treats a function's asynchronous events. */
export interface AsyncSettings {
  functionArn: string;
  retryAttempts: number;
  maxEventAgeSeconds: number;
  /** The on-failure queue; none: the event is discarded. */
  onFailure?: { arn: string; url: string };
}

/** The record Lambda sends to an on-failure destination. */
export interface InvocationRecord {
  version: '1.0';
  timestamp: string;
  requestContext: { requestId: string; functionArn: string; condition: 'RetriesExhausted' | 'EventAgeExceeded'; approximateInvokeCount: number };
  requestPayload: unknown;
  responseContext: { statusCode: number; executedVersion: string; functionError: 'Unhandled' };
  responsePayload: { errorType: string; errorMessage: string; trace: string[] };
}

export type AsyncOutcome =
  | { status: 'succeeded'; attempts: number }
  | { status: 'failed'; attempts: number; record: InvocationRecord; sentTo?: string }
  /** The stack stopped while the event waited for its next attempt. */
  | { status: 'dropped'; attempts: number };

const localFunctionArn = (name: string) => `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${name}`;

/**
 * Each function's settings, by handler entry: the template's EventInvokeConfig (its destination one of the local
 * on-failure queues), Lambda's defaults for a function without one; without the model (LOCAL_IAM=off), those of
 * shared/async-invocations.ts.
 */
export function asyncSettingsOf(model: IamModel | undefined, queues: Record<string, LocalQueue>): (entry: string) => AsyncSettings {
  const byArn = new Map(Object.values(queues).map((q) => [q.arn, q]));
  const settings = new Map<string, AsyncSettings>();
  if (model) {
    for (const [entry, f] of Object.entries(model.functions)) {
      const c = model.asyncConfigs[f.arn] ?? {};
      const queue = c.onFailure ? byArn.get(c.onFailure) : undefined;
      if (c.onFailure && !queue) throw new Error(`the on-failure destination ${c.onFailure} of ${entry} is no queue of the local stack`);
      settings.set(entry, {
        functionArn: f.arn,
        retryAttempts: c.maximumRetryAttempts ?? ASYNC_RETRY_ATTEMPTS,
        maxEventAgeSeconds: c.maximumEventAgeInSeconds ?? DEFAULT_MAX_EVENT_AGE_SECONDS,
        ...(queue ? { onFailure: { arn: queue.arn, url: queue.url } } : {}),
      });
    }
  } else {
    for (const def of ASYNC_INVOCATIONS) {
      const queue = queues[def.key];
      settings.set(def.entry, {
        functionArn: localFunctionArn(def.key),
        retryAttempts: ASYNC_RETRY_ATTEMPTS,
        maxEventAgeSeconds: def.maxEventAgeSeconds,
        ...(queue ? { onFailure: { arn: queue.arn, url: queue.url } } : {}),
      });
    }
  }
  return (entry) =>
    settings.get(entry) ?? { functionArn: localFunctionArn(entry), retryAttempts: ASYNC_RETRY_ATTEMPTS, maxEventAgeSeconds: DEFAULT_MAX_EVENT_AGE_SECONDS };
}

/** The record of an event Lambda gave up on, with the last attempt's error as the Node.js runtime reports it. */
export function invocationRecord(
  s: AsyncSettings,
  requestId: string,
  event: unknown,
  condition: InvocationRecord['requestContext']['condition'],
  attempts: number,
  error: unknown,
): InvocationRecord {
  const e = error instanceof Error ? error : new Error(String(error));
  return {
    version: '1.0',
    timestamp: new Date().toISOString(),
    requestContext: { requestId, functionArn: `${s.functionArn}:$LATEST`, condition, approximateInvokeCount: attempts },
    requestPayload: event,
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    responsePayload: { errorType: e.name, errorMessage: e.message, trace: (e.stack ?? '').split('\n') },
  };
}

export interface AsyncInvoker {
  /** Queues `event` for `entry` and returns at once; the promise tells how it ended (for logs and tests) and never rejects. */
  invoke(entry: string, event: unknown, o: { name: string; timeoutMs: number }): Promise<AsyncOutcome>;
  /** Waits for the attempts running now; the events waiting for a retry are dropped, with a word. */
  stop(): Promise<void>;
}

export function startAsyncInvoker(opts: {
  sqs: SQSClient;
  settings: (entry: string) => AsyncSettings;
  log: (line: string) => void;
  waitScale?: number;
}): AsyncInvoker {
  const scale = opts.waitScale ?? 1;
  let stopped = false;
  const running = new Set<Promise<AsyncOutcome>>();
  const waits = new Set<() => void>();
  /** Resolves true after `ms`, false if the invoker stops first. */
  const wait = (ms: number) =>
    new Promise<boolean>((done) => {
      if (stopped) return done(false);
      const cancel = () => {
        clearTimeout(timer);
        waits.delete(cancel);
        done(false);
      };
      const timer = setTimeout(() => {
        waits.delete(cancel);
        done(true);
      }, ms);
      waits.add(cancel);
    });

  const giveUp = async (entry: string, name: string, s: AsyncSettings, record: InvocationRecord): Promise<AsyncOutcome> => {
    const { condition, approximateInvokeCount: attempts } = record.requestContext;
    const why = `${condition}, ${attempts} attempt(s): ${record.responsePayload.errorMessage}`;
    if (!s.onFailure) {
      opts.log(`[lambda] ${name}: asynchronous event discarded (${why}); the function has no on-failure destination`);
      return { status: 'failed', attempts, record };
    }
    try {
      // Lambda sends the record with the function's execution role.
      await runAs(functionPrincipal(entry), () => opts.sqs.send(new SendMessageCommand({ QueueUrl: s.onFailure!.url, MessageBody: JSON.stringify(record) })));
      opts.log(`[lambda] ${name}: asynchronous event sent to its on-failure queue (${why})`);
      return { status: 'failed', attempts, record, sentTo: s.onFailure.arn };
    } catch (e) {
      // Lambda's DestinationDeliveryFailures: the record is lost.
      opts.log(`[lambda] ${name}: the record of a failed asynchronous event could not be sent to ${s.onFailure.arn}: ${(e as Error).message}`);
      return { status: 'failed', attempts, record };
    }
  };

  const run = async (entry: string, event: unknown, o: { name: string; timeoutMs: number }): Promise<AsyncOutcome> => {
    const s = opts.settings(entry);
    const queuedAt = Date.now();
    // Lambda keeps the invocation's request id across its retries, and the record names it.
    const requestId = randomUUID();
    for (let attempts = 1; ; attempts++) {
      try {
        await invoke(entry, event, lambdaContext(o.name, o.timeoutMs, requestId));
        return { status: 'succeeded', attempts };
      } catch (e) {
        if (attempts > s.retryAttempts) return giveUp(entry, o.name, s, invocationRecord(s, requestId, event, 'RetriesExhausted', attempts, e));
        const ms = RETRY_WAITS_MS[Math.min(attempts, RETRY_WAITS_MS.length) - 1]! * scale;
        opts.log(`[lambda] ${o.name} failed (attempt ${attempts} of ${s.retryAttempts + 1}): ${(e as Error).message}; tried again in ${Math.round(ms)} ms`);
        if (!(await wait(ms))) {
          opts.log(`[lambda] ${o.name}: the stack stopped before attempt ${attempts + 1}; the event is dropped`);
          return { status: 'dropped', attempts };
        }
        if (Date.now() - queuedAt > s.maxEventAgeSeconds * 1000) {
          return giveUp(entry, o.name, s, invocationRecord(s, requestId, event, 'EventAgeExceeded', attempts, e));
        }
      }
    }
  };

  return {
    invoke(entry, event, o) {
      const p = run(entry, event, o).finally(() => running.delete(p));
      running.add(p);
      return p;
    },
    async stop() {
      stopped = true;
      for (const cancel of [...waits]) cancel();
      await Promise.allSettled([...running]);
    },
  };
}
