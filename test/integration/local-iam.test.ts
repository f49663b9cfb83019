import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { enforceIam } from '../../infra/local/iam/enforce';
import type { IamModel } from '../../infra/local/iam/model';
import { functionPrincipal, runAs } from '../../infra/local/iam/principal';
import { readRuntime } from '../../infra/local/runtime-info';
import { accessKeys } from '../../shared/access/keys';
import { BUCKETS } from '../../shared/buckets';
import { QUEUES } from '../../shared/queues';
import { ROUTE_LIST } from '../../shared/routes';
import { testDb } from './helpers';

/**
 * The IAM layer itself, against the stack's own servers, with the model the stack enforces (its iam/model.json):
 * run here, in the test's process, so that the denies it proves are this file's and not the stack's (the run fails
 * on any deny of the stack's).
 */
const routeFn = (id: string) => functionPrincipal(ROUTE_LIST.find((r) => r.id === id)!.handler);
let dir: string;
let env: Record<string, string>;
const client = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

beforeAll(() => {
  env = readRuntime(inject('stateDir'), inject('port'))!.env;
  const model = JSON.parse(readFileSync(join(inject('stateDir'), 'iam', 'model.json'), 'utf8')) as IamModel;
  dir = mkdtempSync(join(tmpdir(), 'ptbs-iam-'));
  enforceIam(model, dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const refusal = async (p: Promise<unknown>) => {
  const e = (await p.then(
    () => undefined,
    (x: unknown) => x,
  )) as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return e && { name: e.name, status: e.$metadata?.httpStatusCode, message: e.message };
};

describe('the local IAM layer', () => {
  it("refuses a write its role does not allow with DynamoDB's AccessDeniedException, before the item changes", async () => {
    const { ddb, accessTable } = testDb();
    const key = accessKeys.member(`p-${Date.now()}`, 'm1');
    await ddb.send(new PutCommand({ TableName: accessTable, Item: { ...key, role: 'DEVELOPER' } }));
    const e = await refusal(
      runAs(routeFn('getMe'), () =>
        ddb.send(
          new UpdateCommand({
            TableName: accessTable,
            Key: key,
            UpdateExpression: 'SET #r = :r',
            ExpressionAttributeNames: { '#r': 'role' },
            ExpressionAttributeValues: { ':r': 'PARTNER_ADMIN' },
          }),
        ),
      ),
    );
    expect(e?.name).toBe('AccessDeniedException');
    expect(e?.status).toBe(400);
    expect(e?.message).toMatch(/is not authorized to perform: dynamodb:UpdateItem on resource: arn:aws:dynamodb:us-east-1:123456789012:table\/access/);
    expect((await ddb.send(new GetCommand({ TableName: accessTable, Key: key }))).Item?.role).toBe('DEVELOPER');
    // The sign-out route may write its member's item; outside any principal (the local runtime) nothing is checked.
    await runAs(routeFn('signOut'), () =>
      ddb.send(
        new UpdateCommand({ TableName: accessTable, Key: key, UpdateExpression: 'SET sessions_revoked_at = :t', ExpressionAttributeValues: { ':t': 'now' } }),
      ),
    );
    expect((await ddb.send(new GetCommand({ TableName: accessTable, Key: key }))).Item?.sessions_revoked_at).toBe('now');
  });

  it('records each deny with its principal, action, resource and condition keys', () => {
    const denies = readFileSync(join(dir, 'denies.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(denies).toContainEqual(
      expect.objectContaining({
        principal: routeFn('getMe'),
        action: 'dynamodb:UpdateItem',
        context: { 'dynamodb:LeadingKeys': [expect.stringMatching(/^PARTNER#/)] },
      }),
    );
  });

  it('answers 403 AccessDenied, not 404, for a missing object when the role may not list the bucket (as S3 does)', async () => {
    const s3 = new S3Client({ ...client, endpoint: env.AWS_ENDPOINT_URL_S3, forcePathStyle: true });
    const missing = new GetObjectCommand({ Bucket: BUCKETS.settlementDocuments!.name, Key: `missing/${Date.now()}.pdf` });
    // The settlement consumer reads and writes the documents' objects but may not list the bucket.
    const asWorker = await refusal(runAs(functionPrincipal(QUEUES.settlements!.consumer), () => s3.send(missing)));
    expect(asWorker).toMatchObject({ name: 'AccessDenied', status: 403 });
    // The local runtime itself sees S3's own answer.
    expect(await refusal(s3.send(missing))).toMatchObject({ name: 'NoSuchKey', status: 404 });
  });

  it('refuses to presign a download for a role that may not read the object', async () => {
    // The package's exports as the stack's handlers get them: the layer wraps them before any handler loads.
    const { getSignedUrl } = createRequire(import.meta.url)('@aws-sdk/s3-request-presigner') as typeof import('@aws-sdk/s3-request-presigner');
    const s3 = new S3Client({ ...client, endpoint: env.AWS_ENDPOINT_URL_S3, forcePathStyle: true });
    const doc = new GetObjectCommand({ Bucket: BUCKETS.settlementDocuments!.name, Key: 'x/invoice.pdf' });
    expect(await refusal(runAs(routeFn('getMe'), () => getSignedUrl(s3, doc, { expiresIn: 60 })))).toMatchObject({ name: 'AccessDenied', status: 403 });
    const download = ROUTE_LIST.find((r) => r.buckets?.settlementDocuments)!;
    expect(await runAs(functionPrincipal(download.handler), () => getSignedUrl(s3, doc, { expiresIn: 60 }))).toContain('X-Amz-Signature=');
  });

  it("lets S3 notify a queue only where the queue's policy allows that bucket", async () => {
    const sqs = new SQSClient({ ...client, endpoint: env.AWS_ENDPOINT_URL_SQS });
    const asS3 = (bucket: string, queueUrl: string) =>
      runAs('service:s3.amazonaws.com', () => sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{"Records":[]}' })), {
        'aws:SourceArn': `arn:aws:s3:::${bucket}`,
        'aws:SourceAccount': '123456789012',
      });
    // Nothing allows S3 to send to the webhook queue; the uploads queue takes the review-photo bucket's events.
    expect(await refusal(asS3(BUCKETS.reviewPhotos!.name, env[QUEUES.webhooks!.envVar]!))).toMatchObject({ name: 'AccessDenied', status: 403 });
    expect(await refusal(asS3(BUCKETS.reviewPhotos!.name, env[QUEUES.uploads!.envVar]!))).toBeUndefined();
  });

  it('refuses a call to a service it does not know, instead of letting it through', async () => {
    const { DescribeStacksCommand, CloudFormationClient } = await import('@aws-sdk/client-cloudformation');
    const cfn = new CloudFormationClient({ ...client, endpoint: 'http://127.0.0.1:1' });
    const e = await refusal(runAs(routeFn('getMe'), () => cfn.send(new DescribeStacksCommand({}))));
    expect(e?.message).toMatch(/does not know this service/);
  });
});
