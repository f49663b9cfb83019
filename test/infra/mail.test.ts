import { App, CfnWaitConditionHandle, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { mailOf } from '../../infra/mail';
import { SPECIMEN_MAIL } from '../../infra/mail-address';
import { QUEUES } from '../../shared/queues';
import { ROUTE_LIST } from '../../shared/routes';
import { actionsOf, isServiceFunction, type Resource, render, type Statement, synthService } from './synth';

const FROM = 'bookings@travel.banque-atlas.ma';
const DOMAIN = 'travel.banque-atlas.ma';
const OPERATORS = 'operations@banque-atlas.ma';
const configured = { mailFrom: FROM, operatorsEmail: OPERATORS };

/** Every policy statement that grants ses:SendEmail, with the policy it is in. */
const sesGrants = (s: ReturnType<typeof synthService>) =>
  s
    .everywhere('AWS::IAM::Policy')
    .flatMap(([, id, p]) =>
      (p.Properties.PolicyDocument.Statement as Statement[])
        .filter((st) => actionsOf(st).some((a) => a.startsWith('ses:')))
        .map((st) => ({ id, statement: st, policy: p })),
    );
/** The functions that send e-mail: the routes that say so and the queue consumers that do. */
const mailSenders = ROUTE_LIST.filter((r) => r.sendsMail).length + Object.values(QUEUES).filter((q) => q.sendsMail).length;

describe('e-mail from a configured sender (-c mailFrom, -c operatorsEmail)', () => {
  let s: ReturnType<typeof synthService>;
  let identity: Template;
  beforeAll(() => {
    s = synthService(configured);
    identity = Template.fromStack(s.stack.mailIdentity!);
  });

  it("declares the sender's domain as an SES identity with Easy DKIM (2048 bits), retained, in a stack deployed before the service", () => {
    expect(s.synthError).toBeUndefined();
    identity.resourceCountIs('AWS::SES::EmailIdentity', 1);
    identity.hasResource('AWS::SES::EmailIdentity', {
      Properties: {
        EmailIdentity: DOMAIN,
        DkimAttributes: { SigningEnabled: true },
        DkimSigningAttributes: { NextSigningKeyLength: 'RSA_2048_BIT' },
      },
      DeletionPolicy: 'RetainExceptOnCreate',
    });
    // The three CNAME records to publish, as outputs.
    const outputs = identity.toJSON().Outputs as Record<string, { Value: unknown }>;
    for (const n of [1, 2, 3]) expect(render(outputs[`DkimRecord${n}`]!.Value)).toMatch(/^\{\w+\.DkimDNSTokenName\d\} CNAME \{\w+\.DkimDNSTokenValue\d\}$/);
    expect(s.stack.dependencies).toContain(s.stack.mailIdentity);
    Annotations.fromStack(s.stack).hasNoWarning('*', Match.stringLikeRegexp('No mail settings'));
  });

  it('grants SendEmail to the functions that send e-mail, and to no other, on the sending identity and the configuration set only, from the one sender', () => {
    const grants = sesGrants(s);
    expect(grants).toHaveLength(mailSenders);
    for (const { id, statement } of grants) {
      expect(actionsOf(statement), id).toEqual(['ses:SendEmail']);
      // In any order: a minimized policy (@aws-cdk/aws-iam:minimizePolicies) sorts a statement's resources.
      const resources = [statement.Resource].flat().map(render);
      expect(resources, id).toHaveLength(2);
      expect(resources, id).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            new RegExp(`^arn:\\{Ref:AWS::Partition\\}:ses:\\{Ref:AWS::Region\\}:\\{Ref:AWS::AccountId\\}:identity/${DOMAIN.replace(/\./g, '\\.')}$`),
          ),
          expect.stringMatching(/:configuration-set\/\{Ref:\w+\}$/),
        ]),
      );
      expect(statement.Condition, id).toEqual({ StringEquals: { 'ses:FromAddress': FROM } });
    }
    s.root.resourceCountIs('AWS::SES::ConfigurationSet', 1);
    s.root.hasResourceProperties('AWS::SES::ConfigurationSet', {
      ReputationOptions: { ReputationMetricsEnabled: true },
      SuppressionOptions: { SuppressedReasons: ['BOUNCE', 'COMPLAINT'] },
    });
  });

  it('gives those functions the sender, the configuration set, the operators and the mail queue (to retry what SES refused), and no other function', () => {
    const fns = s.everywhere('AWS::Lambda::Function').filter(([, , f]) => isServiceFunction(f));
    const env = (f: Resource) => f.Properties.Environment.Variables as Record<string, unknown>;
    const senders = fns.filter(([, , f]) => 'MAIL_FROM' in env(f));
    expect(senders).toHaveLength(mailSenders);
    for (const [, id, f] of senders) {
      expect(env(f), id).toMatchObject({ MAIL_FROM: FROM, OPERATORS_EMAIL: OPERATORS, MAIL_CONFIGURATION_SET: { Ref: expect.any(String) } });
      expect(render(env(f).MAIL_QUEUE_URL), id).toMatch(/mailQueue/);
    }
    for (const { id, policy } of sesGrants(s)) {
      const send = (policy.Properties.PolicyDocument.Statement as Statement[]).filter((st) => actionsOf(st).includes('sqs:SendMessage'));
      expect(send.map((st) => render(st.Resource)).join(' '), id).toMatch(/mailQueue/);
    }
    // The mail queue's consumer sends e-mail and reads no table.
    const consumer = s.everywhere('AWS::IAM::Policy').find(([, id]) => id.startsWith('WebhooksmailConsumerRole'))![2];
    expect(JSON.stringify(consumer)).not.toContain('dynamodb:');
  });

  it("sends the user pool's invitations through the same identity (EmailSendingAccount DEVELOPER), from the sender, with the configuration set", () => {
    const [pool] = Object.values(s.root.findResources('AWS::Cognito::UserPool')) as Resource[];
    const email = pool!.Properties.EmailConfiguration;
    expect(email).toMatchObject({
      EmailSendingAccount: 'DEVELOPER',
      From: FROM,
      ConfigurationSet: { Ref: s.root.getResourceId('AWS::SES::ConfigurationSet') },
    });
    expect(render(email.SourceArn)).toBe(`arn:{Ref:AWS::Partition}:ses:{Ref:AWS::Region}:{Ref:AWS::AccountId}:identity/${DOMAIN}`);
  });
});

describe('e-mail from an existing identity, while the account is in the SES sandbox', () => {
  it('declares no identity, and grants SendEmail on the recipients too (any identity: the sandbox sends only to verified ones), still from the one sender', () => {
    const s = synthService({ ...configured, mailIdentity: 'existing', mailSandbox: 'true' });
    expect(s.synthError).toBeUndefined();
    expect(s.stack.mailIdentity).toBeUndefined();
    expect(s.stack.dependencies).toEqual([]);
    const grants = sesGrants(s);
    expect(grants).toHaveLength(mailSenders);
    for (const { id, statement } of grants) {
      const resources = [statement.Resource].flat().map(render);
      expect(resources, id).toHaveLength(3);
      expect(resources, id).toEqual(
        expect.arrayContaining([
          expect.stringMatching(new RegExp(`:identity/${DOMAIN.replace(/\./g, '\\.')}$`)),
          expect.stringMatching(/:configuration-set\//),
          expect.stringMatching(/:identity\/\*$/),
        ]),
      );
      expect(statement.Condition, id).toEqual({ StringEquals: { 'ses:FromAddress': FROM } });
    }
  });
});

describe('a stack bound to an account and region, as the CDK CLI binds it', () => {
  it('synthesizes with no unacknowledged cdk-nag finding: acknowledgements name the ARNs as a bound stack writes them', () => {
    // The SES sandbox's recipients, the webhook retries' schedules and the CDK assets bucket are in ARNs
    // with the partition, account and region: literal here, <AWS::AccountId> in an unbound synth.
    const s = synthService({ ...configured, mailIdentity: 'existing', mailSandbox: 'true' }, { account: '111122223333', region: 'eu-west-3' });
    expect(s.synthError).toBeUndefined();
    const resources = sesGrants(s).flatMap(({ statement }) => [statement.Resource].flat().map(render));
    expect(resources).toContain('arn:aws:ses:eu-west-3:111122223333:identity/*');
  });
});

describe('reading the mail settings at synth', () => {
  const mailIn = (context: Record<string, unknown>) => {
    const stack = new Stack(new App({ context }), 'S');
    new CfnWaitConditionHandle(stack, 'Something'); // a template has resources
    return { settings: mailOf(stack), stack };
  };

  it('without them, uses the reserved example addresses and warns on the stack', () => {
    const { settings, stack } = mailIn({});
    expect(settings).toEqual({
      from: SPECIMEN_MAIL.from,
      domain: 'partner-travel.example',
      operators: SPECIMEN_MAIL.operators,
      identity: 'declare',
      sandbox: false,
      specimen: true,
    });
    Annotations.fromStack(stack).hasWarning('/S', Match.stringLikeRegexp('No mail settings .*-c mailFrom=ADDRESS.*no e-mail is delivered'));
  });

  it('names what is missing or malformed', () => {
    expect(() => mailIn({ mailFrom: FROM })).toThrow(/-c operatorsEmail is missing/);
    expect(() => mailIn({ mailFrom: 'bookings', operatorsEmail: OPERATORS })).toThrow(/-c mailFrom "bookings" is not an e-mail address/);
    expect(() => mailIn({ ...configured, mailIdentity: 'maybe' })).toThrow(/-c mailIdentity is declare \(the default\) or existing/);
  });

  it('refuses, when required (npm run deploy), no settings and every reserved domain, for the sender and the operators', () => {
    expect(() => mailIn({ requireMail: 'true' })).toThrow(/No mail settings: .*npm run deploy -- -c mailFrom=bookings@YOUR-DOMAIN -c operatorsEmail=ADDRESS/);
    for (const domain of ['partner-travel.example', 'bank.test', 'mail.invalid', 'app.localhost', 'example.com', 'news.example.net', 'example.org']) {
      expect(() => mailIn({ requireMail: 'true', mailFrom: `bookings@${domain}`, operatorsEmail: OPERATORS }), domain).toThrow(
        /Reserved domain in the mail settings: bookings@/,
      );
      expect(() => mailIn({ requireMail: 'true', mailFrom: FROM, operatorsEmail: `ops@${domain}` }), domain).toThrow(/Reserved domain .*: ops@/);
    }
    // Names that only look alike are not reserved.
    for (const from of [FROM, 'bookings@example.co', 'bookings@testing.ma', 'bookings@myexample.com'])
      expect(mailIn({ requireMail: 'true', mailFrom: from, operatorsEmail: OPERATORS }).settings.specimen, from).toBe(false);
  });
});
