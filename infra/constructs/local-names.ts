import type { CfnResource } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Template metadata that ties a resource to its counterpart on the local stack, so that the local IAM layer
 * (infra/local/iam) authorizes the calls of the local functions against the policies of these very templates:
 * `LocalName` names the local table, queue, bucket or user pool (`table:<name>`, `queue:<key>`, `dlq:<key>`,
 * `bucket:<key>`, `userPool`, the SES `configurationSet`); `Entry` is a function's handler entry, by which the
 * local runtime invokes it;
 * `LocalPrincipal` names who acts with a managed policy locally (`operator`).
 * CloudFormation ignores both.
 */
export const LOCAL_NAME_METADATA = 'LocalName';
export const ENTRY_METADATA = 'Entry';
/** On a managed policy no role of the stack uses: the local principal that acts with it (`operator`: the admin CLI). */
export const LOCAL_PRINCIPAL_METADATA = 'LocalPrincipal';

export function markLocal(construct: IConstruct, name: string) {
  (construct.node.defaultChild as CfnResource).addMetadata(LOCAL_NAME_METADATA, name);
}
