import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';

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

/** A Lambda context as the runtime passes it; the timeout mirrors the CDK function default. */
export function lambdaContext(functionName: string, timeoutMs = 10_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
