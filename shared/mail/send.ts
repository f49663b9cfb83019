import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import * as z from 'zod';
import { loadConfig } from '../kernel/config';
import { recordMail } from '../kernel/metrics';
import { traced } from '../kernel/tracing';

/**
 * The deployment's sender: an address of its verified SES identity, and the configuration set every send names
 * (so the functions' grant is pinned to it, not to whatever default set the account has). Set by the stack
 * (infra/mail.ts) and by the local stack; no defaults: a function without them sends nothing.
 */
const senderConfig = z.object({
  MAIL_FROM: z.email(),
  MAIL_CONFIGURATION_SET: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
});
const operatorsConfig = z.object({ OPERATORS_EMAIL: z.email() });

/** Who hears of every live booking and cancellation. */
export const operatorsEmail = () => loadConfig(operatorsConfig).OPERATORS_EMAIL;

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** An HTML part beside the text (what Cognito sends is HTML). */
  html?: string;
}

let ses: SESv2Client | undefined;

/**
 * One SES v2 SendEmail, one attempt, bounded in time: a request never waits on SES for long, and what SES
 * refuses is tried again through the mail queue (./deliver.ts), not here. SES's refusal is thrown as it is
 * (MessageRejected, SendingPausedException, TooManyRequestsException, ...). Uncounted: what the local Cognito
 * sends with, as Cognito sends through SES in AWS. Answers SES's message id, which its bounce and complaint
 * records name (the suppression list's `MessageId`).
 */
export async function sendEmail(m: Mail): Promise<string | undefined> {
  const c = loadConfig(senderConfig);
  ses ??= traced(new SESv2Client({ maxAttempts: 1, requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 } }));
  const sent = await ses.send(
    new SendEmailCommand({
      FromEmailAddress: c.MAIL_FROM,
      Destination: { ToAddresses: [m.to] },
      ConfigurationSetName: c.MAIL_CONFIGURATION_SET,
      Content: {
        Simple: {
          Subject: { Data: m.subject, Charset: 'UTF-8' },
          Body: {
            Text: { Data: m.text, Charset: 'UTF-8' },
            ...(m.html ? { Html: { Data: m.html, Charset: 'UTF-8' } } : {}),
          },
        },
      },
    }),
  );
  return sent.MessageId;
}

/** sendEmail, counted: MailsSent, or MailFailures with SES's error name, and the error thrown on. */
export async function sendMail(m: Mail): Promise<string | undefined> {
  let messageId: string | undefined;
  try {
    messageId = await sendEmail(m);
  } catch (e) {
    recordMail((e as Error).name || 'Error');
    throw e;
  }
  recordMail();
  return messageId;
}
