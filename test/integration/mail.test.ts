import { randomUUID } from 'node:crypto';
import { GetAccountCommand, SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { describe, expect, inject, it } from 'vitest';
import { readRuntime } from '../../infra/local/runtime-info';
import { admin } from './helpers';

/**
 * The local SES (infra/local/ses.ts), reached as the functions reach it: the AWS SDK at
 * AWS_ENDPOINT_URL_SESV2. The local deployment's sender (MAIL_FROM) is its verified identity; SES refuses any
 * other sender, with its own error.
 */
const env = () => readRuntime(inject('stateDir'), inject('port'))!.env;
const ses = () =>
  new SESv2Client({ region: env().AWS_REGION, endpoint: env().AWS_ENDPOINT_URL_SESV2, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const message = (from: string, to: string, configurationSet = env().MAIL_CONFIGURATION_SET) =>
  new SendEmailCommand({
    FromEmailAddress: from,
    Destination: { ToAddresses: [to] },
    ConfigurationSetName: configurationSet,
    Content: { Simple: { Subject: { Data: 'Hello' }, Body: { Text: { Data: 'A test.' } } } },
  });
const mailTo = async (to: string) => (await admin(['mail:list', '--to', to, '--json'])).json.data as { from: string; subject: string; text: string }[];

describe('the local SES', () => {
  it('refuses a sender the deployment has not configured, as SES does an unverified identity (MessageRejected), and delivers nothing', async () => {
    const to = `someone-${randomUUID().slice(0, 6)}@bank-atlas.test`;
    const refused = await ses()
      .send(message('bookings@other-sender.test', to))
      .catch((e: Error) => e);
    expect(refused).toMatchObject({
      name: 'MessageRejected',
      message: 'Email address is not verified. The following identities failed the check in region US-EAST-1: bookings@other-sender.test',
      $metadata: { httpStatusCode: 400 },
    });
    expect(await mailTo(to)).toEqual([]);
  });

  it("delivers the configured sender's e-mail to the mailbox, to any recipient (production access, by default)", async () => {
    const to = `someone-${randomUUID().slice(0, 6)}@bank-atlas.test`;
    const sent = await ses().send(message(env().MAIL_FROM!, to));
    expect(sent.MessageId).toEqual(expect.any(String));
    expect(await mailTo(to)).toEqual([expect.objectContaining({ from: env().MAIL_FROM, to, subject: 'Hello', text: 'A test.' })]);
    expect(await ses().send(new GetAccountCommand({}))).toMatchObject({ ProductionAccessEnabled: true });
  });

  it('refuses a configuration set that does not exist (NotFoundException)', async () => {
    const refused = await ses()
      .send(message(env().MAIL_FROM!, 'someone@bank-atlas.test', 'no-such-set'))
      .catch((e: Error) => e);
    expect(refused).toMatchObject({ name: 'NotFoundException', message: 'Configuration set <no-such-set> does not exist.' });
  });
});
