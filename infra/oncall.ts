import { Annotations, Stack, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { reservedDomain } from './mail-address';

/** A missing or unusable on-call setting: the synth stops with this message alone (infra/app.ts). */
export class OncallError extends Error {}

/** Who the alarms page: an e-mail subscribed to the stack's on-call topic, and/or an existing topic the alarms also notify. */
export interface Oncall {
  email?: string;
  topicArn?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:([a-z0-9-]+):(\d{12}):[A-Za-z0-9_-]{1,256}$/;

/**
 * The on-call settings of a synth: `-c oncallEmail=ADDRESS` (or ONCALL_EMAIL) and `-c oncallTopicArn=ARN` (or
 * ONCALL_TOPIC_ARN: an existing topic, say the one a paging tool subscribes to). `-c requireOncall=true`, which
 * `npm run deploy` passes, refuses a deployment whose alarms would page nobody; without it, a warning.
 */
export function oncallOf(scope: Construct): Oncall {
  const setting = (key: string, env: string) => ((scope.node.tryGetContext(key) as string | undefined) ?? process.env[env])?.trim() || undefined;
  const email = setting('oncallEmail', 'ONCALL_EMAIL');
  const topicArn = setting('oncallTopicArn', 'ONCALL_TOPIC_ARN');
  const required = String(scope.node.tryGetContext('requireOncall') ?? '') === 'true';
  // A reserved domain (.example, example.com) is fine for a test synth; a deployment would page nobody.
  if (email && (!EMAIL.test(email) || (required && reservedDomain(email)))) {
    throw new OncallError(`-c oncallEmail=${email}: not an address anyone receives mail at. Give the on-call team's address.`);
  }
  if (topicArn) {
    const m = TOPIC_ARN.exec(topicArn);
    if (!m) throw new OncallError(`-c oncallTopicArn=${topicArn}: not an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:NAME).`);
    const { region } = Stack.of(scope);
    // CloudWatch notifies a topic of the alarm's own region only.
    if (!Token.isUnresolved(region) && m[1] !== region)
      throw new OncallError(`-c oncallTopicArn=${topicArn}: the topic is in ${m[1]}; the alarms, in ${region}, can notify a topic of ${region} only.`);
  }
  if (!email && !topicArn) {
    if (required) {
      throw new OncallError(
        'No one would be paged: every alarm notifies the on-call topic, which has no subscriber. Give -c oncallEmail=ADDRESS (the on-call ' +
          "team's address, confirmed from the e-mail SNS sends), or -c oncallTopicArn=ARN (an existing topic in this region that pages them): " +
          'docs/operations/alarms-and-runbooks.md.',
      );
    }
    Annotations.of(Stack.of(scope)).addWarningV2('partner-travel:oncall-none', 'No -c oncallEmail or -c oncallTopicArn: the alarms page nobody.');
  }
  return { ...(email ? { email } : {}), ...(topicArn ? { topicArn } : {}) };
}
