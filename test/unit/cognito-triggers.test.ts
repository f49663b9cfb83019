import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminCreateUserCommand, CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVITATION_MESSAGE_TRIGGER } from '../../infra/constructs/console';
import { CognitoException, startLocalCognito } from '../../infra/local/cognito';
import { cognitoTriggers } from '../../infra/local/cognito-triggers';
import type { IamModel } from '../../infra/local/iam/model';
import { freePort, type ServerHandle } from '../../infra/local/services';
import { startLocalSes } from '../../infra/local/ses';
import { LOCAL_CONFIGURATION_SET, SPECIMEN_MAIL } from '../../infra/mail-address';

const poolArn = 'arn:aws:cognito-idp:us-east-1:123456789012:userpool/us-east-1_local';
const fnArn = 'arn:aws:lambda:us-east-1:123456789012:function:InvitationMessage';
const model = {
  functions: { [INVITATION_MESSAGE_TRIGGER]: { arn: fnArn } },
  userPoolTriggers: [{ userPoolArn: poolArn, trigger: 'CustomMessage', functionArn: fnArn }],
} as unknown as IamModel;

describe("the local Cognito's triggers", () => {
  it("fail the operation as Cognito does when the function's resource policy does not let this pool invoke it", async () => {
    const asked: unknown[] = [];
    const { customMessage } = cognitoTriggers({
      model,
      userPoolArn: poolArn,
      allows: async (principal, r) => {
        asked.push({ principal, ...r });
        return false;
      },
      log: () => undefined,
    });
    const failure = await customMessage!({ triggerSource: 'CustomMessage_AdminCreateUser' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(CognitoException);
    expect(failure).toMatchObject({ type: 'UnexpectedLambdaException', message: 'CustomMessage invocation failed due to error AccessDeniedException.' });
    expect(asked).toEqual([
      {
        principal: 'service:cognito-idp.amazonaws.com',
        action: 'lambda:InvokeFunction',
        resource: fnArn,
        context: { 'aws:SourceArn': poolArn, 'aws:SourceAccount': '123456789012' },
      },
    ]);
  });

  it("are the template's: a pool without a CustomMessage trigger has none (Cognito sends its own invitation)", () => {
    expect(cognitoTriggers({ model: { ...model, userPoolTriggers: [] }, userPoolArn: poolArn, log: () => undefined })).toEqual({});
  });
});

describe("the local Cognito's CustomMessage event of an invitation", () => {
  const dir = mkdtempSync(join(tmpdir(), 'local-cognito-'));
  const events: Record<string, any>[] = [];
  const stops: (() => Promise<void>)[] = [];
  let idp: CognitoIdentityProviderClient;
  let userPoolId: string;

  beforeAll(async () => {
    // Cognito sends through SES: the local one, from the deployment's sender.
    const ses: ServerHandle = await startLocalSes({
      port: await freePort(),
      mailboxDir: join(dir, 'mailbox'),
      region: 'us-east-1',
      identities: ['partner-travel.example'],
      configurationSets: [LOCAL_CONFIGURATION_SET],
      sandbox: false,
    });
    stops.push(ses.stop);
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_SESV2: ses.endpoint,
      MAIL_FROM: SPECIMEN_MAIL.from,
      MAIL_CONFIGURATION_SET: LOCAL_CONFIGURATION_SET,
    });
    const cognito = await startLocalCognito(dir, 'http://127.0.0.1:1', 'https://console.example/console/');
    // The pool's trigger, as a function that keeps what Cognito invoked it with and answers nothing (Cognito's own text).
    cognito.useTriggers({
      customMessage: async (event) => {
        events.push(structuredClone(event));
        return event;
      },
    });
    const served = await cognito.listen(await freePort());
    stops.push(served.stop);
    userPoolId = cognito.userPoolId;
    idp = new CognitoIdentityProviderClient({
      region: 'us-east-1',
      endpoint: served.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  });
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("holds the user attributes and both placeholders, and not AdminCreateUser's ClientMetadata (the pre sign-up trigger's only), first or RESEND", async () => {
    const email = 'salma@bank.example';
    const ClientMetadata = { partner_name: 'Banque Atlas', inviter_name: 'Yasmine Alaoui' };
    await idp.send(
      new AdminCreateUserCommand({
        UserPoolId: userPoolId,
        Username: email,
        DesiredDeliveryMediums: ['EMAIL'],
        UserAttributes: [
          { Name: 'email', Value: email },
          { Name: 'email_verified', Value: 'true' },
          { Name: 'given_name', Value: 'Salma' },
        ],
        ClientMetadata,
      }),
    );
    await idp.send(
      new AdminCreateUserCommand({ UserPoolId: userPoolId, Username: email, MessageAction: 'RESEND', DesiredDeliveryMediums: ['EMAIL'], ClientMetadata }),
    );

    expect(events.map((e) => e.triggerSource)).toEqual(['CustomMessage_AdminCreateUser', 'CustomMessage_AdminCreateUser']);
    for (const e of events) {
      expect(e.userPoolId).toBe(userPoolId);
      expect(e.request).toMatchObject({ codeParameter: '{####}', usernameParameter: '{username}' });
      expect(e.request.userAttributes).toMatchObject({ email, given_name: 'Salma' });
      expect(e.request).not.toHaveProperty('clientMetadata');
      expect(JSON.stringify(e)).not.toContain('Banque Atlas');
    }
    // Both were sent, in the pool's own text (the trigger wrote none).
    const mails = readdirSync(join(dir, 'mailbox')).map((f) => JSON.parse(readFileSync(join(dir, 'mailbox', f), 'utf8')) as { to: string; subject: string });
    expect(mails.filter((m) => m.to === email).map((m) => m.subject)).toEqual([
      'Your invitation to the Partner Travel console',
      'Your invitation to the Partner Travel console',
    ]);
  });
});
