import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** Acknowledges cdk-nag AwsSolutions findings (rule, with its `[finding]` if any -> reason) on a construct and its children. */
export function acknowledge(scope: IConstruct, findings: Record<string, string>) {
  for (const [rule, reason] of Object.entries(findings)) Validations.of(scope).acknowledge({ id: `AwsSolutions::AwsSolutions-${rule}`, reason });
}

/** Why a CloudFront distribution on its *.cloudfront.net name cannot pass CFR4 (minimum TLS 1.2_2021). */
export const DEFAULT_CERTIFICATE_REASON =
  'Served on the default *.cloudfront.net certificate, whose security policy CloudFront fixes (TLSv1) whatever MinimumProtocolVersion says; TLSv1.2_2021 needs a custom domain and its ACM certificate in us-east-1, which the deployment does not have yet.';
