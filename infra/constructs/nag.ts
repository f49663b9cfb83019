import { DefaultStackSynthesizer, Stack, Validations } from 'aws-cdk-lib';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import type { IConstruct } from 'constructs';

/** Acknowledges cdk-nag AwsSolutions findings (rule, with its `[finding]` if any -> reason) on a construct and its children. */
export function acknowledge(scope: IConstruct, findings: Record<string, string>) {
  for (const [rule, reason] of Object.entries(findings)) Validations.of(scope).acknowledge({ id: `AwsSolutions::AwsSolutions-${rule}`, reason });
}

/** Why a CloudFront distribution on its *.cloudfront.net name cannot pass CFR4 (minimum TLS 1.2_2021). */
export const DEFAULT_CERTIFICATE_REASON =
  'Served on the default *.cloudfront.net certificate, whose security policy CloudFront fixes (TLSv1) whatever MinimumProtocolVersion says; TLSv1.2_2021 needs a custom domain and its ACM certificate in us-east-1, which the deployment does not have yet.';

/**
 * A resource as cdk-nag writes it in a finding of a policy in `scope`'s stack: the value resolved there and
 * flattened by cdk-nag's own function. A stack bound to an account and region (as the CDK CLI binds it) has
 * them literal in its ARNs, an unbound one `<AWS::AccountId>`: an acknowledgement written by hand for one
 * misses the other.
 */
export function nagResource(scope: IConstruct, value: string): string {
  return flattenCfnReference(Stack.of(scope).resolve(value));
}

/** The objects of the CDK bootstrap's file-asset bucket of `scope`'s environment, as a policy names them. */
export function assetBucketObjects(scope: IConstruct): string {
  // The stack's partition, as CDK's grant writes it: literal in a stack bound to a region (@aws-cdk/core:enablePartitionLiterals).
  const { account, region, partition } = Stack.of(scope);
  const qualifier = scope.node.tryGetContext('@aws-cdk/core:bootstrapQualifier') ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER;
  return `arn:${partition}:s3:::cdk-${qualifier}-assets-${account}-${region}/*`;
}
