import { CfnOutput, type CfnResource, Stack, Validations } from 'aws-cdk-lib';
import type { IUserPool } from 'aws-cdk-lib/aws-cognito';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { LOCAL_PRINCIPAL_METADATA } from './local-names';
import { IDENTITY_ADMIN_ACTIONS, nagRef } from './service-function';

/** What the admin CLI does on the tables: every access pattern it runs is a key lookup, a Query or a write; never a Scan. */
const TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

/**
 * The operators' permissions: a customer-managed policy with what the admin CLI does against the deployed stack
 * (ADMIN_TARGET=aws: docs/operations/admin-cli.md), to attach to the operators' role or IAM Identity Center
 * permission set. The local stack enforces it on the admin CLI (the `operator` principal), so a command that
 * needs more fails locally first.
 */
export class OperatorsConstruct extends Construct {
  readonly policy: ManagedPolicy;

  constructor(
    scope: Construct,
    id: string,
    props: {
      tables: ITableV2[];
      /** The queues the CLI puts messages on (events, settlement runs, the e-mails of its commands) and counts (metrics:summary). */
      queues: IQueue[];
      /** Buckets and what the CLI does with their objects. */
      buckets: { bucket: IBucket; actions: string[] }[];
      userPool: IUserPool;
    },
  ) {
    super(scope, id);
    const stack = Stack.of(this);
    this.policy = new ManagedPolicy(this, 'Policy', {
      description: 'Partner travel service operators: what the admin CLI does against the deployed stack',
      statements: [
        new PolicyStatement({ actions: TABLE_ACTIONS, resources: props.tables.flatMap((t) => [t.tableArn, `${t.tableArn}/index/*`]) }),
        new PolicyStatement({ actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes'], resources: props.queues.map((q) => q.queueArn) }),
        ...props.buckets.map((b) => new PolicyStatement({ actions: b.actions, resources: [b.bucket.arnForObjects('*')] })),
        new PolicyStatement({ actions: IDENTITY_ADMIN_ACTIONS, resources: [props.userPool.userPoolArn] }),
        // The CLI finds the tables, queues and buckets in the stack's outputs.
        new PolicyStatement({ actions: ['cloudformation:DescribeStacks'], resources: [stack.stackId] }),
      ],
    });
    (this.policy.node.defaultChild as CfnResource).addMetadata(LOCAL_PRINCIPAL_METADATA, 'operator');
    for (const t of props.tables) {
      Validations.of(this.policy).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagRef(this, t.node.defaultChild as CfnResource, 'Arn')}/index/*]`,
        reason: "Operators' queries use the table's secondary indexes, whose ARNs end in /index/*; the grant is limited to that table.",
      });
    }
    for (const b of props.buckets) {
      Validations.of(this.policy).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagRef(this, b.bucket.node.defaultChild as CfnResource, 'Arn')}/*]`,
        reason: `Object keys are made at run time; the grant is ${b.actions.join(', ')} on the objects of that one bucket.`,
      });
    }
    new CfnOutput(stack, 'OperatorPolicyArn', {
      value: this.policy.managedPolicyArn,
      description: "Attach to the operators' role or permission set: what the admin CLI needs (docs/operations/admin-cli.md)",
    });
  }
}
