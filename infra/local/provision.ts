import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  type CORSRule,
  CreateBucketCommand,
  DeleteBucketCorsCommand,
  PutBucketCorsCommand,
  PutObjectLockConfigurationCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { ASYNC_INVOCATIONS, ON_FAILURE_RETENTION_DAYS, onFailureQueueName } from '../../shared/async-invocations';
import { BUCKETS, type BucketCors, retentionDays } from '../../shared/buckets';
import { TABLES, type TableDef } from '../../shared/db/tables';
import { QUEUES } from '../../shared/queues';
import { queueArnOfUrl } from './iam/requests';

const S = 'S' as const;

function attributeDefinitions(def: TableDef): AttributeDefinition[] {
  const names = new Set([def.partitionKey, def.sortKey, ...def.indexes.flatMap((i) => [i.partitionKey, i.sortKey])]);
  return [...names].map((AttributeName) => ({ AttributeName, AttributeType: S }));
}

/** Creates the tables of shared/tables.ts on DynamoDB Local (and adds indexes added since). */
export async function provisionTables(ddb: DynamoDBClient): Promise<void> {
  for (const def of Object.values(TABLES) as TableDef[]) {
    let existing: Set<string> | undefined;
    try {
      const d = await ddb.send(new DescribeTableCommand({ TableName: def.name }));
      existing = new Set((d.Table?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName!));
    } catch (e) {
      if (!(e instanceof ResourceNotFoundException)) throw e;
    }
    if (!existing) {
      await ddb.send(
        new CreateTableCommand({
          TableName: def.name,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: attributeDefinitions(def),
          KeySchema: [
            { AttributeName: def.partitionKey, KeyType: 'HASH' },
            { AttributeName: def.sortKey, KeyType: 'RANGE' },
          ],
          GlobalSecondaryIndexes: def.indexes.map((i) => ({
            IndexName: i.name,
            KeySchema: [
              { AttributeName: i.partitionKey, KeyType: 'HASH' },
              { AttributeName: i.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          })),
        }),
      );
      await ddb.send(new UpdateTimeToLiveCommand({ TableName: def.name, TimeToLiveSpecification: { AttributeName: def.ttlAttribute, Enabled: true } }));
      continue;
    }
    for (const i of def.indexes.filter((x) => !existing!.has(x.name))) {
      await ddb.send(
        new UpdateTableCommand({
          TableName: def.name,
          AttributeDefinitions: attributeDefinitions(def),
          GlobalSecondaryIndexUpdates: [
            {
              Create: {
                IndexName: i.name,
                KeySchema: [
                  { AttributeName: i.partitionKey, KeyType: 'HASH' },
                  { AttributeName: i.sortKey, KeyType: 'RANGE' },
                ],
                Projection: { ProjectionType: 'ALL' },
              },
            },
          ],
        }),
      );
    }
  }
}

export interface ProvisionedQueue {
  name: string;
  url: string;
  arn: string;
  dlqUrl: string;
}

/** Creates each queue of shared/queues.ts with its DLQ and redrive policy. */
export async function provisionQueues(sqs: SQSClient): Promise<Record<string, ProvisionedQueue>> {
  const out: Record<string, ProvisionedQueue> = {};
  for (const [key, q] of Object.entries(QUEUES)) {
    const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${q.name}-dlq`, Attributes: { MessageRetentionPeriod: '1209600' } }));
    const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
    const main = await sqs.send(
      new CreateQueueCommand({
        QueueName: q.name,
        Attributes: {
          VisibilityTimeout: String(q.visibilityTimeoutSeconds),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: q.maxReceiveCount }),
        },
      }),
    );
    const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: main.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
    out[key] = { name: q.name, url: main.QueueUrl!, arn, dlqUrl: dlq.QueueUrl! };
  }
  return out;
}

/** A queue of the local SQS server with its URL and ARN (the one the IAM layer names it by: infra/local/iam/requests.ts). */
export interface LocalQueue {
  name: string;
  url: string;
  arn: string;
}

/** Creates the on-failure queue of every asynchronously invoked function (shared/async-invocations.ts), by key. */
export async function provisionOnFailureQueues(sqs: SQSClient): Promise<Record<string, LocalQueue>> {
  const out: Record<string, LocalQueue> = {};
  for (const def of ASYNC_INVOCATIONS) {
    const name = onFailureQueueName(def.key);
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({ QueueName: name, Attributes: { MessageRetentionPeriod: String(ON_FAILURE_RETENTION_DAYS * 86_400) } }),
    );
    out[def.key] = { name, url: QueueUrl!, arn: queueArnOfUrl(QueueUrl!) };
  }
  return out;
}

/** A bucket's CORS rule as the S3 API takes it (PutBucketCors). */
const corsRule = (c: BucketCors): CORSRule => ({
  AllowedOrigins: c.allowedOrigins,
  AllowedMethods: c.allowedMethods,
  AllowedHeaders: c.allowedHeaders,
  ExposeHeaders: c.exposedHeaders,
  MaxAgeSeconds: c.maxAgeSeconds,
});

/**
 * Creates the buckets of shared/buckets.ts and gives each its CORS rule, or none, and its Object Lock with its
 * default retention (as the CDK does; a state directory follows edits; the local S3's layer applies the rules of
 * Object Lock uploads, infra/local/s3-checksums.ts).
 */
export async function provisionBuckets(s3: S3Client): Promise<void> {
  for (const b of Object.values(BUCKETS)) {
    const days = retentionDays(b);
    try {
      await s3.send(new CreateBucketCommand({ Bucket: b.name, ObjectLockEnabledForBucket: days !== undefined }));
    } catch (e) {
      const name = (e as { name?: string }).name;
      if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw e;
    }
    if (days) {
      await s3.send(
        new PutObjectLockConfigurationCommand({
          Bucket: b.name,
          ObjectLockConfiguration: { ObjectLockEnabled: 'Enabled', Rule: { DefaultRetention: { Mode: 'GOVERNANCE', Days: days } } },
        }),
      );
    }
    if (b.cors) await s3.send(new PutBucketCorsCommand({ Bucket: b.name, CORSConfiguration: { CORSRules: [corsRule(b.cors)] } }));
    else await s3.send(new DeleteBucketCorsCommand({ Bucket: b.name }));
  }
}
