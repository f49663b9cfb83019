import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who makes the AWS calls of the code running now, as AWS would see it: a function's execution role
 * (`function:<entry>`), another role of the stack (`role:<logical id>`, e.g. the Scheduler's), a service
 * principal (`service:s3.amazonaws.com`, with the condition keys the service sets, e.g. aws:SourceArn) or the
 * operator (`operator`, the admin CLI). The local runtime sets it around every invocation
 * (infra/local/lambda.ts) and around the work it does in AWS's place (the queue pollers, the Scheduler, S3's
 * notifications); the IAM layer (infra/local/iam/enforce.ts) reads it.
 */
export interface Caller {
  principal: string;
  context?: Record<string, string>;
}

const store = new AsyncLocalStorage<Caller>();

/** Runs `fn` with `principal` making its AWS calls. */
export const runAs = <T>(principal: string, fn: () => T, context?: Record<string, string>): T => store.run({ principal, ...(context ? { context } : {}) }, fn);

/** The caller of the code running now (undefined: the local runtime itself, e.g. provisioning). */
export const currentCaller = (): Caller | undefined => store.getStore();

export const functionPrincipal = (entry: string) => `function:${entry}`;
