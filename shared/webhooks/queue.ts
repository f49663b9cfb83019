import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import type { RecordedEvent } from '../events/record';
import type { EventRef } from '../events/types';
import { loadConfig } from '../kernel/config';
import { logger } from '../kernel/logger';
import { traced } from '../kernel/tracing';
import type { Message } from './model';

const queueConfig = z.object({
  WEBHOOK_QUEUE_URL: z.string().optional(),
  WEBHOOK_QUEUE_URL_ARN: z.string().optional(),
  WEBHOOK_QUEUE_URL_DLQ: z.string().optional(),
  /** The retry schedules' group: the stack's own in AWS, set by the CDK (and by the local runtime). */
  SCHEDULER_GROUP: z.string().min(1).optional(),
  SCHEDULER_ROLE_ARN: z.string().default('arn:aws:iam::123456789012:role/local-scheduler'),
  /** Local testing only: shrinks the retry waits without changing their shape. */
  WEBHOOK_WAIT_SCALE: z.coerce.number().positive().max(1).default(1),
});
export const queueSettings = () => loadConfig(queueConfig);

let sqs: SQSClient | undefined;
let scheduler: SchedulerClient | undefined;

/** SQS delays a message 15 minutes at most (DelaySeconds). */
const MAX_DELAY_SECONDS = 900;

/** Puts messages on the webhook queue, ten per call; `delaySeconds` keeps them from being received before then. */
export async function enqueue(messages: Message[], delaySeconds?: number): Promise<void> {
  const url = queueSettings().WEBHOOK_QUEUE_URL;
  if (!url || messages.length === 0) {
    if (messages.length) logger.warn('webhook queue not configured: the sweeper will pick these up', { count: messages.length });
    return;
  }
  sqs ??= traced(new SQSClient({}));
  for (let i = 0; i < messages.length; i += 10) {
    const r = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: messages.slice(i, i + 10).map((m, j) => ({ Id: String(j), MessageBody: JSON.stringify(m), DelaySeconds: delaySeconds })),
      }),
    );
    if (r.Failed?.length) throw new Error(`could not enqueue ${r.Failed.length} webhook message(s)`);
  }
}

/**
 * After a transaction recorded events: nudge the fan-out, with each event when
 * it is at hand (the fan-out then need not read it). A lost nudge is re-driven
 * by the sweeper.
 */
export async function publishEvents(events: (RecordedEvent | EventRef)[]): Promise<void> {
  try {
    await enqueue(
      events.map((e) =>
        'ref' in e
          ? { kind: 'fanout' as const, ...e.ref, partner_id: e.partner_id, env: e.env, event: e.event }
          : { kind: 'fanout' as const, pk: e.pk, sk: e.sk },
      ),
    );
  } catch (e) {
    logger.warn('event fan-out deferred to the sweeper', { error: (e as Error).message });
  }
}

/**
 * Attempt `attempt` of a delivery, received `earlyMs` before it is due, back on the queue to be received when it
 * is (whole seconds, rounded up): a message due more than 15 minutes later comes back and is put back again.
 */
export async function deferAttempt(deliveryId: string, attempt: number, earlyMs: number): Promise<void> {
  await enqueue([{ kind: 'attempt', delivery_id: deliveryId, attempt }], Math.min(MAX_DELAY_SECONDS, Math.ceil(earlyMs / 1000)));
}

function atExpression(when: Date): string {
  // Scheduler's at() has whole seconds (rounded up), but Scheduler invokes its target within the minute of that
  // time, "between 1:00:00 and 1:00:59" for 1:00 ("Schedule types", Scheduler user guide): up to 59 s early.
  // The worker does not attempt a retry before it is due (attempt.ts), so an early one waits on the queue.
  return `at(${new Date(Math.ceil(when.getTime() / 1000) * 1000).toISOString().slice(0, 19)})`;
}

/** A one-time EventBridge Scheduler schedule that puts attempt `attempt` of the delivery on the queue at `due`. */
export async function scheduleAttempt(deliveryId: string, attempt: number, due: Date): Promise<void> {
  const c = queueSettings();
  if (!c.SCHEDULER_GROUP) throw new Error('SCHEDULER_GROUP is not configured');
  scheduler ??= traced(new SchedulerClient({}));
  await scheduler.send(
    new CreateScheduleCommand({
      Name: `dlv-${deliveryId}-${attempt}`,
      GroupName: c.SCHEDULER_GROUP,
      ScheduleExpression: atExpression(due),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: {
        Arn: c.WEBHOOK_QUEUE_URL_ARN!,
        RoleArn: c.SCHEDULER_ROLE_ARN,
        Input: JSON.stringify({ kind: 'attempt', delivery_id: deliveryId, attempt } satisfies Message),
      },
    }),
  );
}

/** The dead-letter record of a delivery whose attempts are exhausted, on the webhook DLQ for the operators. */
export async function sendDeadLetter(message: Record<string, unknown>): Promise<void> {
  const dlq = queueSettings().WEBHOOK_QUEUE_URL_DLQ;
  if (!dlq) return;
  sqs ??= traced(new SQSClient({}));
  await sqs.send(new SendMessageCommand({ QueueUrl: dlq, MessageBody: JSON.stringify({ kind: 'dead_letter', ...message }) }));
}
