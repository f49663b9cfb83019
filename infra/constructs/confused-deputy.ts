import { type IAspect, Stack } from 'aws-cdk-lib';
import { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';

interface Statement {
  Effect?: string;
  Principal?: { Service?: unknown };
  Condition?: Record<string, Record<string, unknown>>;
}

const SOURCE_KEYS = /^aws:source(account|arn|orgid|orgpaths)$/i;

/**
 * Every role an AWS service assumes may be assumed for this account's own resources only: `aws:SourceAccount` in
 * its trust policy, as AWS's cross-service confused deputy guidance asks (Lambda and EventBridge Scheduler document
 * the key for their roles). An aspect, so CDK's own deploy-time roles (custom resources, the bucket deployment)
 * are bounded as the service's functions are. A statement that already names a source is left as it is.
 */
export class BoundServiceRoles implements IAspect {
  visit(node: IConstruct): void {
    if (!(node instanceof CfnRole)) return;
    const stack = Stack.of(node);
    const doc = stack.resolve(node.assumeRolePolicyDocument) as { Statement?: Statement[] } | undefined;
    if (!doc?.Statement) return;
    let changed = false;
    for (const s of doc.Statement) {
      if (s.Effect !== 'Allow' || !s.Principal?.Service) continue;
      const named = Object.values(s.Condition ?? {}).some((block) => Object.keys(block).some((k) => SOURCE_KEYS.test(k)));
      if (named) continue;
      s.Condition = { ...s.Condition, StringEquals: { ...s.Condition?.StringEquals, 'aws:SourceAccount': stack.resolve(stack.account) } };
      changed = true;
    }
    if (changed) node.assumeRolePolicyDocument = doc;
  }
}
