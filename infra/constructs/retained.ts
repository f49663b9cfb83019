import { RemovalPolicy } from 'aws-cdk-lib';

/**
 * The removal policy of every resource the stack keeps when it is deleted or the resource replaced (tables,
 * buckets, the user pool, the SES identity, the API's access logs, the alarm topic's key): CloudFormation's
 * `RetainExceptOnCreate`, with `UpdateReplacePolicy: Retain`. It retains like `Retain`, except when the stack
 * operation that created the resource rolls back: then the resource, new and unused, is deleted, so a failed
 * first deploy leaves no orphan to clean up by hand ("DeletionPolicy attribute", CloudFormation template
 * reference; any resource type that takes a DeletionPolicy takes it). Deletion protection still refuses that
 * delete: docs/operations/deploying.md, "A failed first deploy", says what is then left.
 */
export const RETAINED = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;
