import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { Context } from 'aws-lambda';
import { functionPrincipal, runAs } from './iam/principal';

export const ROOT = resolve(import.meta.dirname, '..', '..');

// biome-ignore lint/suspicious/noExplicitAny: the runtime invokes every kind of handler (HTTP, SQS, cron) through one loader, as Lambda does.
export type LambdaHandler = (event: any, context: Context) => Promise<any>;

const loaded = new Map<string, Promise<LambdaHandler>>();

/** Imports a handler entry (a file under functions/) once, as Lambda does per container. */
export function loadHandler(entry: string): Promise<LambdaHandler> {
  let p = loaded.get(entry);
  if (!p) {
    p = import(pathToFileURL(resolve(ROOT, entry)).href).then((m: { handler?: LambdaHandler }) => {
      if (typeof m.handler !== 'function') throw new Error(`${entry} does not export a handler`);
      return m.handler;
    });
    loaded.set(entry, p);
  }
  return p;
}

/**
 * Lambda's invoke store, as the Node.js runtime keeps it when one execution
 * environment runs several invocations at once (AWS_LAMBDA_MAX_CONCURRENCY):
 * an AsyncLocalStorage holding each invocation's own context. The local
 * runtime runs every handler in one process, concurrently, so it runs each
 * invocation inside the store: Powertools keeps the invocation's log keys,
 * metrics and trace segment there, and concurrent requests never share a
 * request id. Created before any AWS SDK call (the SDK reads the store too, and
 * the first caller decides its kind).
 */
const invokeStore: InvokeStoreBase = await InvokeStore.getInstanceAsync(true);
if (!('als' in invokeStore)) {
  throw new Error('the invoke store was created for single invocations before the local runtime loaded: import infra/local/lambda.ts first');
}
// Powertools scopes its state to the invocation when this is set, and then needs the store above to exist
// (the entry points' prelude, scripts/quiet-sdk.ts, clears an inherited value until then).
process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '64';

/** Whether the caller runs inside an invocation (its output belongs to a function's log). */
export const inInvocation = () => invokeStore.hasContext();

/** Runs `fn` as one invocation with its own context (request id, and what Powertools keeps per invocation). */
export function withinInvocation<T>(requestId: string, fn: () => Promise<T>): Promise<T> {
  return invokeStore.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: requestId }, fn);
}

/** Told of every invocation once it ends (the bench's cost counts: Lambda bills invocations and their duration). */
export const invocationObservers = new Set<(entry: string, ms: number) => void>();

/**
 * Invokes a handler entry as Lambda does: loaded once, called with the event and the context, in its own
 * invocation context, its AWS calls made as the function's role (infra/local/iam).
 */
export async function invoke<R = unknown>(entry: string, event: unknown, context: Context): Promise<R> {
  const handler = await loadHandler(entry);
  const started = performance.now();
  try {
    return await withinInvocation(context.awsRequestId, () => runAs(functionPrincipal(entry), () => handler(event, context)));
  } finally {
    for (const observe of invocationObservers) observe(entry, performance.now() - started);
  }
}

/** A Lambda context as the runtime passes it; the timeout mirrors the CDK function default; an asynchronous retry keeps its request id. */
export function lambdaContext(functionName: string, timeoutMs = 10_000, awsRequestId: string = randomUUID()): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
