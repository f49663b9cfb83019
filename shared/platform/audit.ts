import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '../aws';
import { accessTableName } from '../config';
import { clean, queryPage } from '../db';

export interface AuditEvent {
  id: string;
  occurred_at: string;
  member_id: string;
  key_prefix: string;
  environment: 'live' | 'test';
  method: string;
  path: string;
  status: number;
  request_id: string;
  idempotent_replayed: boolean;
}

const RETENTION_DAYS = 400;
const partition = (partnerId: string, env: string) => `AUDIT#${partnerId}#${env}`;

/** One audit record per write; never a body (bodies may carry secrets or personal data). */
export async function recordAudit(partnerId: string, e: AuditEvent): Promise<void> {
  await ddb.send(
    new PutCommand({
      TableName: accessTableName(),
      Item: {
        pk: partition(partnerId, e.environment),
        sk: `${e.occurred_at}#${e.id}`,
        ...e,
        ttl: Math.floor(Date.parse(e.occurred_at) / 1000) + RETENTION_DAYS * 86400,
      },
    }),
  );
}

/** Most recent first; `after` is the sort key of the last row of the previous page. */
export async function listAudit(partnerId: string, env: string, limit: number, after?: string) {
  const pk = partition(partnerId, env);
  const { items, hasMore } = await queryPage(
    { TableName: accessTableName(), KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': pk }, ScanIndexForward: false },
    limit,
    after ? { pk, sk: after } : undefined,
  );
  return { items: items.map((i) => clean<AuditEvent>(i)), next: hasMore ? (items.at(-1)!.sk as string) : undefined };
}
