import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CfnOutput, type CfnResource, Duration, Stack } from 'aws-cdk-lib';
import {
  Function as CloudFrontFunction,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import {
  AccountRecovery,
  ClientAttributes,
  FeaturePlan,
  Mfa,
  StandardThreatProtectionMode,
  UserPool,
  type UserPoolClient,
  UserPoolEmail,
  UserPoolOperation,
} from 'aws-cdk-lib/aws-cognito';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { INVITATION_LEADING_KEYS } from '../../shared/access/keys';
import { TABLES } from '../../shared/db/tables';
import { CONSOLE_PATH, consoleCsp } from '../console-policy';
import { markLocal } from './local-names';
import type { MailConstruct } from './mail';
import { acknowledge, assetBucketObjects, DEFAULT_CERTIFICATE_REASON, nagResource } from './nag';
import { RETAINED } from './retained';
import { deployTimeHandler, type IdentityBinding, nagRef, REPO_ROOT, ServiceFunction } from './service-function';

/** Where `npm run -s console:build` writes the console. */
export const CONSOLE_DIST = join(REPO_ROOT, 'console', 'dist');
export const CONSOLE_DIST_MISSING = 'console/dist is missing: run npm run -s console:build';

/**
 * The viewer-request CloudFront Function (cloudfront-js-2.0) of the console's distribution: S3 has no
 * directory index and CloudFront's default root object serves only "/", so /console/ (and any path ending
 * in /) is served as its index.html, and / and /console redirect to /console/.
 */
export const CONSOLE_PATH_FUNCTION = `function handler(event) {
  var request = event.request;
  if (request.uri === '/' || request.uri === '${CONSOLE_PATH.slice(0, -1)}') {
    return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: '${CONSOLE_PATH}' } } };
  }
  if (request.uri.endsWith('/')) request.uri += 'index.html';
  return request;
}`;

/** The user pool's CustomMessage trigger: the invitation names the bank and the member who invited (shared/team/invitation.ts). */
export const INVITATION_MESSAGE_TRIGGER = 'functions/team/invitation-message.ts';

/** Cognito's regional endpoint, which the browser calls to sign in (InitiateAuth, RespondToAuthChallenge, ...). */
export const cognitoEndpoint = (region: string) => `https://cognito-idp.${region}.amazonaws.com`;

export interface ConsoleProps {
  /** The API's origin (https://<id>.execute-api.<region>.amazonaws.com): the CSP's connect-src and, with /v1, config.json's apiBaseUrl. */
  apiOrigin: string;
  /** The settlement documents' bucket (its regional endpoint, where the API's presigned links point): the CSP's connect-src. */
  documentsBucket: IBucket;
  /** The bucket of the S3 server access logs and CloudFront standard logs (ACLs enabled: CloudFront's log delivery needs them). */
  logsBucket: IBucket;
  /** The built console (default console/dist). */
  distDir?: string;
  /** The deployment's sender, its SES identity and configuration set: the pool's invitations go through them. */
  mail: MailConstruct;
  /** The access table, where the service leaves what an invitation e-mail names (its pending invitations). */
  accessTable: ITableV2;
}

/**
 * The partner console in AWS: the Cognito user pool its members sign in to (invited only, e-mail, strong
 * passwords, TOTP required, threat protection), its app client (a browser app: no secret), and the web app's
 * static files in a private bucket served by CloudFront through origin access control, with strict security
 * headers. config.json, deployed beside index.html, tells the app where the API and the pool are.
 */
export class ConsoleConstruct extends Construct implements IdentityBinding {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** https://<distribution domain>: the console's origin, the one CORS allows. */
  readonly consoleOrigin: string;
  /** The pool's CustomMessage trigger (Cognito invokes it synchronously: no retry, no destination, an error alarm). */
  readonly invitationMessage: ServiceFunction;

  constructor(scope: Construct, id: string, props: ConsoleProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { region } = stack;

    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: props.logsBucket,
      serverAccessLogsPrefix: 'console/',
      removalPolicy: RETAINED,
    });
    const headers = new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'Partner console: strict CSP, HSTS, no framing, no sniffing, no referrer',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: consoleCsp({
            api: props.apiOrigin,
            cognito: cognitoEndpoint(region),
            documents: `https://${props.documentsBucket.bucketRegionalDomainName}`,
          }),
          override: true,
        },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, preload: true, override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
    });
    // The console routes with the URL's hash: every path CloudFront sees is a file, and no error page is rewritten to index.html.
    // No default root object (it would serve only "/", from the bucket's root): the function serves /console/ and redirects / there.
    this.distribution = new Distribution(this, 'Cdn', {
      comment: 'Partner console (static files)',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        responseHeadersPolicy: headers,
        functionAssociations: [
          {
            eventType: FunctionEventType.VIEWER_REQUEST,
            function: new CloudFrontFunction(this, 'Paths', {
              comment: 'Partner console: /console/ is its index.html; / redirects there',
              code: FunctionCode.fromInline(CONSOLE_PATH_FUNCTION),
              runtime: FunctionRuntime.JS_2_0,
            }),
          },
        ],
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      enableLogging: true,
      logBucket: props.logsBucket,
      logFilePrefix: 'cloudfront/console/',
    });
    acknowledge(this.distribution, {
      CFR1: 'The console is used by partner banks wherever they operate: no geo restriction; sign-in is guarded by Cognito (TOTP required, threat protection).',
      CFR2: 'Static, public files only (the API and Cognito are other origins, with their own throttling and threat protection); WAF is the documented next step if abuse appears.',
      CFR4: DEFAULT_CERTIFICATE_REASON,
    });
    this.consoleOrigin = `https://${this.distribution.distributionDomainName}`;

    this.userPool = new UserPool(this, 'UserPool', {
      // Members are invited (POST /v1/team/members, the admin CLI): nobody signs up.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(7),
      },
      // Banks expect a second factor for everyone: TOTP only (no SMS: SIM swaps, and no SMS role to run).
      mfa: Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      // Threat protection (compromised credentials, adaptive authentication) needs the Plus plan; full function blocks, not only logs.
      featurePlan: FeaturePlan.PLUS,
      standardThreatProtectionMode: StandardThreatProtectionMode.FULL_FUNCTION,
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      // Through the deployment's SES identity (EmailSendingAccount DEVELOPER), not Cognito's own address and its
      // low daily cap; the identity is in this region (the stack's <id>Mail) and must be verified before this deploys.
      email: UserPoolEmail.withSES({
        fromEmail: props.mail.settings.from,
        sesVerifiedDomain: props.mail.settings.domain,
        sesRegion: region,
        configurationSetName: props.mail.configurationSet.configurationSetName,
      }),
      userInvitation: {
        emailSubject: 'Your partner console invitation',
        emailBody: `You are invited to your bank's partner travel console: ${this.consoleOrigin}${CONSOLE_PATH}. Sign in with {username} and the temporary password {####} (valid 7 days); you will choose a password and set up an authenticator app.`,
      },
      deletionProtection: true,
      removalPolicy: RETAINED,
    });
    markLocal(this.userPool, 'userPool');
    // The pool's template cannot name the bank or who invited: this trigger writes the invitation from the
    // pending invitation the service leaves for the invitee's address (AWS gives AdminCreateUser's ClientMetadata
    // to the pre sign-up trigger only). It reads those items only; Cognito may invoke it for this pool only.
    this.invitationMessage = new ServiceFunction(this, 'InvitationMessage', {
      entry: INVITATION_MESSAGE_TRIGGER,
      description: 'Console invitation e-mail: names the bank and the member who invited (Cognito CustomMessage trigger)',
      // Cognito waits 5 s for a trigger, then fails the invitation: a longer timeout would only run on unseen.
      timeout: Duration.seconds(5),
    });
    this.invitationMessage.addEnvironment('CONSOLE_URL', `${this.consoleOrigin}${CONSOLE_PATH}`);
    this.invitationMessage.bind({
      tables: [{ table: props.accessTable, def: TABLES.access, access: 'read', readLeadingKeys: INVITATION_LEADING_KEYS, getItemOnly: true }],
    });
    this.userPool.addTrigger(UserPoolOperation.CUSTOM_MESSAGE, this.invitationMessage);
    this.client = this.userPool.addClient('ConsoleClient', {
      userPoolClientName: 'partner-console',
      // A browser app cannot keep a secret.
      generateSecret: false,
      authFlows: { userPassword: true, userSrp: true },
      // The console signs in with the SDK's flows above, never through the hosted UI: no OAuth flows, no callback URLs.
      disableOAuth: true,
      preventUserExistenceErrors: true,
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.hours(12),
      enableTokenRevocation: true,
      // A first sign-in sets a password and enrols an authenticator app: the challenge session may take that long.
      authSessionValidity: Duration.minutes(15),
      // Members change their names, not their e-mail (the member record's and the sign-in's): admins do that.
      writeAttributes: new ClientAttributes().withStandardAttributes({ givenName: true, familyName: true }),
    });

    const dist = props.distDir ?? CONSOLE_DIST;
    const built = existsSync(join(dist, 'index.html'));
    // A synth that bundles (npm run synth, cdk deploy) needs the built console; one that skips bundling (the infra tests) does not.
    if (!built && stack.bundlingRequired) throw new Error(CONSOLE_DIST_MISSING);
    const handler = deployTimeHandler(this, 'Deploy');
    new BucketDeployment(this, 'Deploy', {
      sources: [
        built ? Source.asset(dist) : Source.data('index.html', '<!doctype html><title>console not built (synth without bundling)</title>'),
        Source.jsonData('config.json', {
          apiBaseUrl: `${props.apiOrigin}/v1`,
          cognito: {
            region,
            userPoolId: this.userPool.userPoolId,
            clientId: this.client.userPoolClientId,
            endpoint: `${cognitoEndpoint(region)}/`,
          },
        }),
      ],
      destinationBucket: this.bucket,
      destinationKeyPrefix: CONSOLE_PATH.slice(1),
      // Built files are content-hashed; these names are not, so CloudFront forgets them at each deploy.
      distribution: this.distribution,
      distributionPaths: [`${CONSOLE_PATH}index.html`, `${CONSOLE_PATH}config.json`],
      role: handler.role,
      logGroup: handler.logGroup,
    });
    // CDK's BucketDeployment handler runs at deploy time only and grants itself these (iam grantRead/grantReadWrite).
    const cdk = "CDK's BucketDeployment handler (deploy time only)";
    acknowledge(handler.role, {
      'IAM5[Action::s3:GetObject*]': `${cdk} reads the console's asset zip and the bucket with CDK's grantRead actions, on those two buckets only.`,
      'IAM5[Action::s3:GetBucket*]': `${cdk} reads the location and settings of the assets bucket and the console bucket, no other.`,
      'IAM5[Action::s3:List*]': `${cdk} lists the console bucket to delete what the new build no longer has (prune).`,
      'IAM5[Action::s3:DeleteObject*]': `${cdk} deletes the console files the new build no longer has (prune), in the console bucket only.`,
      'IAM5[Action::s3:Abort*]': `${cdk} aborts its own failed multipart uploads to the console bucket.`,
      [`IAM5[Resource::${nagResource(handler.role, assetBucketObjects(this))}]`]: `${cdk} reads the asset zip, whose key is a content hash, from the CDK assets bucket.`,
      [`IAM5[Resource::${nagRef(handler.role, this.bucket.node.defaultChild as CfnResource, 'Arn')}/*]`]: `${cdk} writes every file of the build to the console bucket.`,
      'IAM5[Resource::*]': `${cdk} invalidates the console's index.html and config.json on its distribution: CDK grants cloudfront:CreateInvalidation and GetInvalidation on every distribution.`,
    });

    new CfnOutput(stack, 'UserPoolId', { value: this.userPool.userPoolId });
    new CfnOutput(stack, 'UserPoolClientId', { value: this.client.userPoolClientId });
    new CfnOutput(stack, 'ConsoleUrl', { value: `${this.consoleOrigin}${CONSOLE_PATH}` });
  }
}
