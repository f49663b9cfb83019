import { Annotations, Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import * as z from 'zod';
import { domainOf, MailConfigError, reservedDomain, SPECIMEN_MAIL } from './mail-address';

/** What a deployment sends e-mail from and to, and how its SES identity comes to be. */
export interface MailSettings {
  /** The sender of every e-mail (MAIL_FROM), the functions' and Cognito's. */
  from: string;
  /** The SES identity: the sender's domain, with DKIM. */
  domain: string;
  /** The operators' copy of every live booking and cancellation (OPERATORS_EMAIL). */
  operators: string;
  /** `declare`: the stack declares the domain identity (in a stack of its own, <stack>Mail); `existing`: the account has it verified already. */
  identity: 'declare' | 'existing';
  /** The account's SES is still in the sandbox: recipients are verified identities, which SendEmail is authorized against too. */
  sandbox: boolean;
  /** No settings were given: the reserved example addresses, which nothing delivers. */
  specimen: boolean;
}

const address = (what: string) =>
  z.email({ error: (i) => `${what} ${i.input === undefined ? 'is missing' : `"${String(i.input)}" is not an e-mail address`}` });
const contextSchema = z.object({
  mailFrom: address('-c mailFrom'),
  operatorsEmail: address('-c operatorsEmail'),
  mailIdentity: z.enum(['declare', 'existing'], { error: '-c mailIdentity is declare (the default) or existing' }).default('declare'),
  mailSandbox: z.enum(['true', 'false'], { error: '-c mailSandbox is true or false' }).default('false'),
});

const context = (scope: Construct, key: string) => {
  const v = scope.node.tryGetContext(key) as unknown;
  return v === undefined ? undefined : String(v);
};

/**
 * The mail settings of a synth, from CDK context: `-c mailFrom=ADDRESS -c operatorsEmail=ADDRESS`, and
 * `-c mailIdentity=existing` (the account has the sender's domain verified in SES already) or
 * `-c mailSandbox=true` (its SES is still in the sandbox). Without mailFrom and operatorsEmail, the reserved
 * example addresses and a warning on the stack, so `npm run synth` and the tests work offline;
 * `-c requireMail=true` (what `npm run deploy` passes) refuses that, and any reserved domain.
 */
export function mailOf(scope: Construct): MailSettings {
  const given = { mailFrom: context(scope, 'mailFrom'), operatorsEmail: context(scope, 'operatorsEmail') };
  const required = context(scope, 'requireMail') === 'true';
  const specimen = given.mailFrom === undefined && given.operatorsEmail === undefined;
  const parsed = contextSchema.safeParse({
    ...(specimen ? { mailFrom: SPECIMEN_MAIL.from, operatorsEmail: SPECIMEN_MAIL.operators } : given),
    mailIdentity: context(scope, 'mailIdentity'),
    mailSandbox: context(scope, 'mailSandbox'),
  });
  if (!parsed.success)
    throw new MailConfigError(`Mail settings: ${parsed.error.issues.map((i) => i.message).join('; ')} (docs/operations/deploying.md, "E-mail").`);
  const c = parsed.data;
  if (required) {
    if (specimen) {
      throw new MailConfigError(
        'No mail settings: e-mail would go from bookings@partner-travel.example, which SES can never verify. Deploy with ' +
          '`npm run deploy -- -c mailFrom=bookings@YOUR-DOMAIN -c operatorsEmail=ADDRESS` (docs/operations/deploying.md, "E-mail").',
      );
    }
    const reserved = [c.mailFrom, c.operatorsEmail].flatMap((a) => {
      const r = reservedDomain(a);
      return r ? [`${a} (${r})`] : [];
    });
    if (reserved.length) {
      throw new MailConfigError(
        `Reserved domain in the mail settings: ${reserved.join(', ')}. SES can never verify it and nobody receives mail there: ` +
          'give addresses of a domain you own (docs/operations/deploying.md, "E-mail").',
      );
    }
  }
  if (specimen) {
    Annotations.of(Stack.of(scope)).addWarningV2(
      'partner-travel:mail-specimen',
      `No mail settings (-c mailFrom=ADDRESS -c operatorsEmail=ADDRESS): e-mail goes from ${SPECIMEN_MAIL.from}, a reserved domain ` +
        'SES can never verify, so no e-mail is delivered. See docs/operations/deploying.md, "E-mail".',
    );
  }
  return {
    from: c.mailFrom,
    domain: domainOf(c.mailFrom),
    operators: c.operatorsEmail,
    identity: c.mailIdentity,
    sandbox: c.mailSandbox === 'true',
    specimen,
  };
}
