import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Distribution, ResponseHeadersPolicy, ViewerProtocolPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, EventType, HttpMethods, ObjectLockRetention, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { SqsDestination } from 'aws-cdk-lib/aws-s3-notifications';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BUCKETS, type BucketDef, retentionDays } from '../../shared/buckets';
import { markLocal } from './local-names';
import { acknowledge, DEFAULT_CERTIFICATE_REASON } from './nag';
import { RETAINED } from './retained';

/** Days after which S3 aborts a multipart upload still incomplete in any of the service's buckets. */
export const INCOMPLETE_UPLOAD_DAYS = 1;

/**
 * The service's buckets (settlement documents; review photos), from shared/buckets.ts: encrypted, private, TLS only,
 * access-logged, incomplete multipart uploads aborted after a day. A bucket that notifies sends ObjectCreated events
 * of its prefix to its queue; one that expires a prefix has a lifecycle rule for it; one with a CORS rule has it (the
 * local S3 server applies the same); one that serves a prefix has a CloudFront distribution reading it through origin
 * access control (the bucket stays private).
 */
/** How long S3 and CloudFront access logs are kept. */
export const ACCESS_LOG_DAYS = 400;

export class UploadsConstruct extends Construct {
  readonly buckets: Record<string, Bucket> = {};
  /** Public base URLs of the served prefixes, by bucket key. */
  readonly servedUrls: Record<string, string> = {};
  readonly distributions: Record<string, Distribution> = {};
  /** The bucket of the S3 server access logs (allowed by its bucket policy) and CloudFront standard logs (allowed by ACL). */
  accessLogs?: Bucket;

  constructor(scope: Construct, id: string, props: { buckets?: Record<string, BucketDef>; queues?: Record<string, IQueue> } = {}) {
    super(scope, id);
    const defs = Object.entries(props.buckets ?? BUCKETS);
    if (defs.length === 0) return;
    const accessLogs = new Bucket(this, 'AccessLogs', {
      // CloudFront's standard logging (legacy) delivers by ACL and refuses a bucket whose ACLs are disabled (Object
      // Ownership 'bucket owner enforced', S3's default for a new bucket). S3 server access logs need no ACL: CDK
      // grants logging.s3.amazonaws.com in the bucket policy (@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy).
      // https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/standard-logging-legacy-s3.html
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RETAINED,
      // As long as the functions' logs in production (13 months), then gone: they would otherwise grow forever.
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(ACCESS_LOG_DAYS) }],
    });
    this.accessLogs = accessLogs;
    for (const [key, def] of defs) {
      const days = retentionDays(def);
      const bucket = new Bucket(this, `${key}Bucket`, {
        versioned: def.versioned ?? false,
        ...(days ? { objectLockEnabled: true, objectLockDefaultRetention: ObjectLockRetention.governance(Duration.days(days)) } : {}),
        encryption: BucketEncryption.S3_MANAGED,
        blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
        enforceSSL: true,
        serverAccessLogsBucket: accessLogs,
        serverAccessLogsPrefix: `${key}/`,
        removalPolicy: RETAINED,
        lifecycleRules: [
          // Parts of a multipart upload nobody completed or aborted (a writer killed mid-upload, an abort that
          // failed) are billed until aborted. No upload here lasts a day; Object Lock does not hold parts.
          { id: 'abort-incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(INCOMPLETE_UPLOAD_DAYS) },
          ...(def.expire
            ? [{ id: `expire-${def.expire.prefix.replace(/\/$/, '')}`, prefix: def.expire.prefix, expiration: Duration.days(def.expire.days) }]
            : []),
        ],
        ...(def.cors
          ? {
              cors: [
                {
                  allowedOrigins: def.cors.allowedOrigins,
                  allowedMethods: def.cors.allowedMethods.map((m) => HttpMethods[m]),
                  allowedHeaders: def.cors.allowedHeaders,
                  exposedHeaders: def.cors.exposedHeaders,
                  maxAge: def.cors.maxAgeSeconds,
                },
              ],
            }
          : {}),
      });
      markLocal(bucket, `bucket:${key}`);
      this.buckets[key] = bucket;
      if (def.notify) {
        const queue = props.queues?.[def.notify.queue];
        if (!queue) throw new Error(`bucket ${key} notifies queue ${def.notify.queue}, which is not given`);
        for (const prefix of def.notify.prefixes) bucket.addEventNotification(EventType.OBJECT_CREATED, new SqsDestination(queue), { prefix });
      }
      if (def.serve) this.serve(key, bucket, def.serve.prefix, def.serve.headers);
    }
    // The notification custom resource (one per stack) is CDK's own Lambda, which configures the notification at deploy time.
    const handler = Stack.of(this).node.tryFindChild('BucketNotificationsHandler050a0587b7544547bf325f094a3db834');
    if (handler) {
      Validations.of(handler).acknowledge({
        id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: "CDK's BucketNotificationsHandler (deploy time only) logs with AWSLambdaBasicExecutionRole.",
      });
      Validations.of(handler).acknowledge({
        id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
        reason: "CDK's BucketNotificationsHandler (deploy time only) needs s3:PutBucketNotification; CDK grants it on a wildcard resource.",
      });
    }
  }

  /**
   * A CloudFront distribution over one prefix of a private bucket, through origin access control, whose
   * responses carry the def's headers (a response headers policy that overrides whatever the origin says;
   * nosniff and the CSP are CloudFront security headers, anything else a custom header).
   */
  private serve(key: string, bucket: Bucket, prefix: string, headers: Record<string, string>) {
    const { 'X-Content-Type-Options': nosniff, 'Content-Security-Policy': csp, ...custom } = headers;
    const responseHeadersPolicy = new ResponseHeadersPolicy(this, `${key}Headers`, {
      comment: `${key}: served objects are never sniffed nor run`,
      securityHeadersBehavior: {
        ...(nosniff ? { contentTypeOptions: { override: true } } : {}),
        ...(csp ? { contentSecurityPolicy: { contentSecurityPolicy: csp, override: true } } : {}),
      },
      ...(Object.keys(custom).length
        ? { customHeadersBehavior: { customHeaders: Object.entries(custom).map(([header, value]) => ({ header, value, override: true })) } }
        : {}),
    });
    const distribution = new Distribution(this, `${key}Cdn`, {
      comment: `${key}: ${prefix} served publicly (stable photo URLs)`,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(bucket, { originPath: `/${prefix.replace(/\/$/, '')}` }),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy,
      },
      // CloudFront standard logs beside the buckets' access logs (the log bucket keeps ACLs, which CloudFront's log delivery needs).
      enableLogging: true,
      logBucket: this.accessLogs,
      logFilePrefix: `cloudfront/${key}/`,
    });
    acknowledge(distribution, {
      CFR1: 'Review photos are public catalog content shown to travelers wherever the partner banks operate: no geo restriction.',
      CFR2: 'Static, immutable images with no origin logic behind them; WAF is the documented next step if abuse appears.',
      CFR4: DEFAULT_CERTIFICATE_REASON,
    });
    this.distributions[key] = distribution;
    this.servedUrls[key] = `https://${distribution.distributionDomainName}`;
  }
}
