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

/** Puts messages on the webhook queue, ten per call. */
export async function enqueue(messages: Message[]): Promise<void> {
  const url = queueSettings().WEBHOOK_QUEUE_URL;
  if (!url || messages.length === 0) {
    if (messages.length) logger.warn('webhook queue not configured: the sweeper will pick these up', { count: messages.length });
    return;
  }
  sqs ??= traced(new SQSClient({}));
  for (let i = 0; i < messages.length; i += 10) {
    const r = await sqs.send(
      new SendMessageBatchCommand({ QueueUrl: url, Entries: messages.slice(i, i + 10).map((m, j) => ({ Id: String(j), MessageBody: JSON.stringify(m) })) }),
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

function atExpression(when: Date): string {
  // Scheduler's at() has whole seconds; round up so a retry never comes early.
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
