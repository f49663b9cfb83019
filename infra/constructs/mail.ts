import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { ConfigurationSet, DkimIdentity, EasyDkimSigningKeyLength, EmailIdentity, Identity, SuppressionReasons } from 'aws-cdk-lib/aws-ses';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { MailSettings } from '../mail';
import { markLocal } from './local-names';
import { RETAINED } from './retained';

/**
 * The sender's domain as an SES identity, with Easy DKIM (2048-bit keys): in a stack of its own, deployed
 * first, because Cognito refuses a user pool whose sending identity is not verified yet, and the identity is
 * verified only once its three DKIM CNAME records (the outputs) are published in the domain's DNS
 * (docs/operations/deploying.md, "E-mail"). Retained: deleting it would invalidate the published records.
 */
export class MailIdentityStack extends Stack {
  readonly identity: EmailIdentity;

  constructor(scope: Construct, id: string, props: StackProps & { domain: string }) {
    super(scope, id, { ...props, description: `SES identity of ${props.domain} (DKIM), the partner travel service's sender` });
    this.identity = new EmailIdentity(this, 'Identity', {
      identity: Identity.domain(props.domain),
      dkimSigning: true,
      dkimIdentity: DkimIdentity.easyDkim(EasyDkimSigningKeyLength.RSA_2048_BIT),
    });
    this.identity.applyRemovalPolicy(RETAINED);
    new CfnOutput(this, 'MailIdentity', { value: props.domain, description: 'The SES domain identity' });
    this.identity.dkimRecords.forEach((r, i) => {
      new CfnOutput(this, `DkimRecord${i + 1}`, {
        value: `${r.name} CNAME ${r.value}`,
        description: `DKIM record ${i + 1} of 3, to publish in the DNS of ${props.domain}`,
      });
    });
  }
}

/** What a function that sends e-mail is given (ServiceFunction.allowMail). */
export interface MailBinding {
  from: string;
  operators: string;
  /** The sending identity's name (the sender's domain): SES authorizes SendEmail against it. */
  domain: string;
  /** The configuration set every send names: SES authorizes SendEmail against it too. */
  configurationSetName: string;
  /** The account's SES is in the sandbox: SendEmail is authorized against the recipients' identities as well. */
  sandbox: boolean;
  /** The mail queue: where an e-mail SES refused waits to be sent again. */
  retryQueue: IQueue;
}

/**
 * The mail side of the service stack: the configuration set every e-mail is sent with (reputation metrics,
 * bounces and complaints to the account's suppression list), and the settings the functions and the user pool
 * send with.
 */
export class MailConstruct extends Construct {
  readonly settings: MailSettings;
  readonly configurationSet: ConfigurationSet;

  constructor(scope: Construct, id: string, settings: MailSettings) {
    super(scope, id);
    this.settings = settings;
    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet', {
      reputationMetrics: true,
      suppressionReasons: SuppressionReasons.BOUNCES_AND_COMPLAINTS,
    });
    markLocal(this.configurationSet, 'configurationSet');
  }

  binding(retryQueue: IQueue): MailBinding {
    const s = this.settings;
    return {
      from: s.from,
      operators: s.operators,
      domain: s.domain,
      configurationSetName: this.configurationSet.configurationSetName,
      sandbox: s.sandbox,
      retryQueue,
    };
  }
}
