import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { loadConfig } from '../kernel/config';
import { logger } from '../kernel/logger';
import { traced } from '../kernel/tracing';
import { type Mail, sendMail } from './send';

const retryConfig = z.object({ MAIL_QUEUE_URL: z.string().min(1) });
/**
 * `queue`: every e-mail goes on the mail queue for its consumer to send, none is sent here. What an operator's
 * shell (the admin CLI) does: e-mail goes out from the service's functions only, under their grant.
 */
const deliveryConfig = z.object({ MAIL_DELIVERY: z.enum(['send', 'queue']).default('send') });

/** A message of the mail queue: one e-mail SES refused when it was first sent, and what it is about (ids). */
const retryMessage = z.object({
  kind: z.literal('mail'),
  // The address as it was first sent to: SES judges it, not this schema.
  mail: z.object({ to: z.string().min(3), subject: z.string().min(1), text: z.string() }),
  context: z.record(z.string(), z.string()).default({}),
});

let sqs: SQSClient | undefined;

async function queueForRetry(mail: Mail, context: Record<string, string>): Promise<void> {
  sqs ??= traced(new SQSClient({}));
  const body: z.infer<typeof retryMessage> = { kind: 'mail', mail, context };
  await sqs.send(new SendMessageCommand({ QueueUrl: loadConfig(retryConfig).MAIL_QUEUE_URL, MessageBody: JSON.stringify(body) }));
}

/**
 * Sends one e-mail and logs SES's message id with what it is about: a bounce or complaint names the message id
 * (the suppression list's MessageId), and this line leads from it to the partner and the booking or endpoint.
 */
async function sendLogged(mail: Mail, context: Record<string, string>): Promise<void> {
  const messageId = await sendMail(mail);
  logger.info('e-mail sent', { ...context, message_id: messageId });
}

/**
 * Sends each e-mail now, side by side. One that SES refuses (or does not answer in time) is counted
 * (MailFailures, alarmed) and put on the mail queue, whose consumer tries it again every 5 minutes for half an
 * hour and then leaves it on the DLQ (alarmed) to be redriven once SES sends again. Never throws, and never
 * waits on a retry: a booking or an endpoint's verdict does not depend on an e-mail. `context` names what the
 * e-mails are about in the log lines, each sent one's with its message id (ids, never addresses).
 */
export async function deliver(mails: Mail[], context: Record<string, string>): Promise<void> {
  const queueOnly = loadConfig(deliveryConfig).MAIL_DELIVERY === 'queue';
  await Promise.all(
    mails.map(async (mail) => {
      try {
        if (queueOnly) return await queueForRetry(mail, context);
        await sendLogged(mail, context);
      } catch (e) {
        const error = (e as Error).message;
        if (queueOnly) return logger.error('e-mail not queued: lost', { ...context, error });
        try {
          await queueForRetry(mail, context);
          logger.warn('e-mail not sent: queued for retry', { ...context, error });
        } catch (q) {
          logger.error('e-mail not sent, and not queued for retry: lost', { ...context, error, queue_error: (q as Error).message });
        }
      }
    }),
  );
}

/** The mail queue's consumer: one queued e-mail, sent again; SES's refusal is thrown, so SQS redelivers it later. */
export async function retryMail(body: unknown): Promise<void> {
  const m = retryMessage.parse(body);
  await sendLogged(m.mail, m.context);
}
