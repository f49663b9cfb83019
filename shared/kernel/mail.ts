import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import * as z from 'zod';
import { loadConfig } from './config';
import { traced } from './tracing';

const mailConfig = z.object({
  MAIL_MODE: z.enum(['ses', 'file']).default('ses'),
  MAIL_FROM: z.string().default('bookings@partner-travel.example'),
  MAILBOX_DIR: z.string().optional(),
  OPERATOR_FALLBACK_EMAIL: z.string().default('operators@partner-travel.example'),
});

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

let ses: SESv2Client | undefined;

export const operatorFallbackEmail = () => loadConfig(mailConfig).OPERATOR_FALLBACK_EMAIL;

/** Sends through SES v2 in AWS; the local stack writes each message as a JSON file in its mailbox under .local/. */
export async function sendMail(m: Mail): Promise<void> {
  const c = loadConfig(mailConfig);
  if (c.MAIL_MODE === 'file') {
    const dir = c.MAILBOX_DIR ?? join(process.env.LOCAL_STATE_DIR ?? '.local', 'mailbox');
    mkdirSync(dir, { recursive: true });
    const sentAt = new Date().toISOString();
    writeFileSync(
      join(dir, `${sentAt.replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.json`),
      JSON.stringify({ from: c.MAIL_FROM, ...m, sent_at: sentAt }, null, 2),
    );
    return;
  }
  ses ??= traced(new SESv2Client({}));
  await ses.send(
    new SendEmailCommand({
      FromEmailAddress: c.MAIL_FROM,
      Destination: { ToAddresses: [m.to] },
      Content: { Simple: { Subject: { Data: m.subject, Charset: 'UTF-8' }, Body: { Text: { Data: m.text, Charset: 'UTF-8' } } } },
    }),
  );
}
