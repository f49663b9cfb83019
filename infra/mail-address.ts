/**
 * The sender's and the operators' addresses, apart from the CDK code (infra/mail.ts) so that the local runtime
 * loads no aws-cdk-lib.
 */

/** A missing or unusable mail setting: the synth stops with this message alone (infra/app.ts), for an operator to act on. */
export class MailConfigError extends Error {}

/** What a stack synthesized without mail settings, and the local stack by default, send from and to: reserved, never deliverable. */
export const SPECIMEN_MAIL = { from: 'bookings@partner-travel.example', operators: 'operators@partner-travel.example' } as const;

/** The configuration set the local stack's functions name (the CDK stack declares its own). */
export const LOCAL_CONFIGURATION_SET = 'partner-travel-local';

/**
 * The local deployment's mail settings as CDK context (infra/mail.ts), from the MAIL_FROM and OPERATORS_EMAIL
 * `npm start` runs with: the templates the local IAM layer authorizes against then grant the sender the local
 * SES verifies (the specimen in both when none is given), and the recipients' identities while the local SES is
 * in the sandbox (LOCAL_SES_SANDBOX), as a deploy with -c mailSandbox=true does.
 */
export function localMailContext(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return {
    ...(env.MAIL_FROM || env.OPERATORS_EMAIL
      ? { mailFrom: env.MAIL_FROM ?? SPECIMEN_MAIL.from, operatorsEmail: env.OPERATORS_EMAIL ?? SPECIMEN_MAIL.operators }
      : {}),
    ...(env.LOCAL_SES_SANDBOX === 'true' ? { mailSandbox: 'true' } : {}),
  };
}

export const domainOf = (address: string) => (address.split('@')[1] ?? '').toLowerCase();

/**
 * The reserved name `address` is under, if any: the top-level domains of RFC 2606 and RFC 6761 (.example, .test,
 * .invalid, .localhost) and the second-level example.com, example.net, example.org. SES can never verify them,
 * and nobody receives mail there.
 */
export function reservedDomain(address: string): string | undefined {
  const labels = domainOf(address).split('.');
  const tld = labels.at(-1) ?? '';
  if (['example', 'test', 'invalid', 'localhost'].includes(tld)) return `.${tld}`;
  const second = labels.slice(-2).join('.');
  return ['example.com', 'example.net', 'example.org'].includes(second) ? second : undefined;
}
