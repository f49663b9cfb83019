import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ASYNC_RETRY_ATTEMPTS, type AsyncInvocationDef, ON_FAILURE_RETENTION_DAYS } from '../../shared/async-invocations';
import { markLocal } from './local-names';
import { acknowledge } from './nag';

/** An asynchronously invoked function, its settings and its on-failure queue, for the alarms. */
export interface AsyncTarget {
  fn: IFunction;
  def: AsyncInvocationDef;
  onFailure: Queue;
}

/**
 * The on-failure queue of an asynchronously invoked function: encrypted, TLS only, kept 14 days. A stateful
 * resource: in the service stack, whatever stack the function is in.
 */
export function onFailureQueue(scope: Construct, id: string, def: AsyncInvocationDef): Queue {
  const queue = new Queue(scope, id, {
    retentionPeriod: Duration.days(ON_FAILURE_RETENTION_DAYS),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  markLocal(queue, `onFailure:${def.key}`);
  acknowledge(queue, {
    SQS3: `The on-failure destination of ${def.entry}'s asynchronous invocations, a dead-letter queue in all but name: nothing consumes it, operators read and re-drive it.`,
  });
  return queue;
}

/**
 * How Lambda invokes `fn` asynchronously (shared/async-invocations.ts): two retries, the def's maximum event
 * age, and its on-failure destination (by default a queue beside the function), where Lambda puts the
 * invocation record of an event that failed every attempt or grew too old. Lambda sends it with the
 * function's execution role: SqsDestination grants that role sqs:SendMessage on the queue.
 */
export function invokedAsynchronously(
  fn: IFunction,
  def: AsyncInvocationDef,
  onFailure: Queue = onFailureQueue(fn.node.scope as Construct, `${fn.node.id}OnFailure`, def),
): AsyncTarget {
  fn.configureAsyncInvoke({
    onFailure: new SqsDestination(onFailure),
    retryAttempts: ASYNC_RETRY_ATTEMPTS,
    maxEventAge: Duration.seconds(def.maxEventAgeSeconds),
  });
  return { fn, def, onFailure };
}
