import { DEFAULT_CERTIFICATE_REASON } from '../constructs/nag';

/**
 * The AWS Control Tower proactive controls the stack knowingly fails, each with why. An organisation that enables
 * one of them refuses the stack at deploy: docs/operations/deploying.md shows this list to the deploying team, and
 * the rehearsal fails on a failure that is not here, or on an entry the stack no longer fails.
 */
export const ACCEPTED_CONTROL_FAILURES: Record<string, string> = {
  'CT.APIGATEWAY.PR.5':
    "Partners authenticate with the service's own API keys (hashed, per partner and environment) and sign live writes; the console's Cognito tokens are verified in each function. API Gateway's IAM and JWT authorizers can check neither, and a Lambda authorizer would add a stage to every request (docs/performance.md).",
  'CT.CLOUDFRONT.PR.1':
    "The console's distribution serves /console/, the photos' the photos/ prefix of its bucket; both buckets are read through origin access control with no s3:ListBucket, so the root answers 403 and lists nothing, which is what a default root object guards against.",
  'CT.CLOUDFRONT.PR.4':
    "Each distribution has one S3 origin in the stack's region; failover needs a bucket replicated to a second region, which the deployment does not have (docs/operations/recovery.md).",
  'CT.CLOUDFRONT.PR.6': DEFAULT_CERTIFICATE_REASON,
  'CT.CLOUDFRONT.PR.7': DEFAULT_CERTIFICATE_REASON,
  'CT.CLOUDFRONT.PR.9': DEFAULT_CERTIFICATE_REASON,
  'CT.CLOUDWATCH.PR.3':
    "CloudWatch Logs encrypts every log group at rest with keys it manages. A customer-managed key for the functions' log groups would add a key policy for the Logs service and a cost on every write, and a disabled key would lose the logs; the logs hold no secret (docs/operations/observability.md).",
  'CT.LAMBDA.PR.2':
    "Every permission lets one AWS service invoke one function, bounded by a SourceArn of this stack's own API routes, rule or user pool (the rehearsal's IAM check holds it); the rule accepts a SourceArn only as a direct reference to a resource of the same template, and these are built with Fn::Join or passed from the parent stack.",
  'CT.LAMBDA.PR.3':
    "The functions reach only AWS's public endpoints, over TLS with IAM, and the partners' webhook URLs on the internet (public HTTPS addresses only: shared/webhooks/ssrf.ts). A VPC would add NAT gateways and interface endpoints (a cost and one more path to fail) and hide nothing those calls expose.",
  'CT.S3.PR.10':
    'S3-managed keys (SSE-S3) encrypt every object at rest. A KMS key would put a KMS call and its cost on every presigned photo upload and document download and a key policy on every reader, CloudFront included; and S3 delivers server access logs only to an SSE-S3 bucket.',
  'CT.S3.PR.11':
    'The console bucket is rewritten whole from git at each deploy; a photo is written once under a key of its own and a refused upload is deleted (a version would keep it); access logs are append-only and expire. The settlement documents, which are records, are versioned and under Object Lock.',
  'CT.S3.PR.2': "The bucket that receives the other buckets' access logs: logging it into itself would log its own logging.",
  'CT.S3.PR.4':
    "Only the photo bucket has a consumer of its events (the validator, through the uploads queue), configured by CDK's bucket-notifications custom resource, which the rule cannot see; the console, access-log and documents buckets have nothing to notify.",
  'CT.S3.PR.6': 'The console bucket is rewritten whole at each deploy: nothing in it ages. (The access logs expire after 400 days.)',
  'CT.S3.PR.9':
    'Object Lock is for records that must not change: the settlement documents have it (10 years, governance mode). The console is replaced at each deploy, a refused photo upload is deleted, access logs expire.',
  'CT.SQS.PR.1':
    "The queues without a dead-letter queue are themselves where failed messages end: the consumers' dead-letter queues and the on-failure queues of asynchronous invocations. One of theirs would only move the same records again.",
};
