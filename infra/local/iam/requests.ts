import { TABLES } from '../../../shared/db/tables';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './model';

/** One authorization AWS makes for a call: an action on a resource, with the request's condition keys. */
export interface IamRequest {
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
}

// biome-ignore lint/suspicious/noExplicitAny: the wire input of any command of six services, read field by field.
type Input = Record<string, any>;

const arn = (service: string, resource: string) => `arn:aws:${service}:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${resource}`;
const tableArn = (table: string) => arn('dynamodb', `table/${table}`);

/** The partition key attribute of a table, from the shared definitions (dynamodb:LeadingKeys is its value). */
const partitionKeyOf = (table: string) => Object.values(TABLES).find((t) => t.name === table)?.partitionKey ?? 'pk';

/** The string value of a key attribute in DynamoDB's JSON ({S: ...}, {N: ...}, {B: ...}). */
const scalar = (v: Record<string, unknown> | undefined): string | undefined =>
  v ? String(v.S ?? v.N ?? (v.B ? Buffer.from(v.B as Uint8Array).toString('base64') : '')) : undefined;

function leadingKeys(table: string, ...items: (Record<string, Record<string, unknown>> | undefined)[]): Record<string, string[]> {
  const pk = partitionKeyOf(table);
  const values = [...new Set(items.map((i) => scalar(i?.[pk])).filter((v): v is string => v !== undefined))];
  return values.length ? { 'dynamodb:LeadingKeys': values } : {};
}

/** The partition key value a Query's key condition names (`#pk = :v` or `pk = :v`), for a query of the table itself. */
function queriedPartition(input: Input): Record<string, Record<string, unknown>> | undefined {
  if (input.IndexName || typeof input.KeyConditionExpression !== 'string') return undefined;
  const pk = partitionKeyOf(input.TableName);
  for (const clause of (input.KeyConditionExpression as string).split(/\s+AND\s+/i)) {
    const m = /^\s*\(?\s*(#?[\w]+)\s*=\s*(:[\w]+)\s*\)?\s*$/.exec(clause);
    if (!m) continue;
    const name = m[1]!.startsWith('#') ? input.ExpressionAttributeNames?.[m[1]!] : m[1];
    if (name === pk) return { [pk]: input.ExpressionAttributeValues?.[m[2]!] };
  }
  return undefined;
}

function dynamodb(command: string, input: Input): IamRequest[] {
  const one = (action: string, table: string, ctx: Record<string, string[]> = {}, index?: string): IamRequest => ({
    action: `dynamodb:${action}`,
    resource: index ? `${tableArn(table)}/index/${index}` : tableArn(table),
    context: ctx,
  });
  switch (command) {
    case 'GetItem':
    case 'DeleteItem':
    case 'UpdateItem':
      return [one(command, input.TableName, leadingKeys(input.TableName, input.Key))];
    case 'PutItem':
      return [one(command, input.TableName, leadingKeys(input.TableName, input.Item))];
    case 'Query':
      return [one('Query', input.TableName, leadingKeys(input.TableName, queriedPartition(input)), input.IndexName)];
    case 'Scan':
      return [one('Scan', input.TableName, {}, input.IndexName)];
    case 'BatchGetItem':
      return Object.entries(input.RequestItems as Record<string, { Keys: Input[] }>).map(([t, r]) => one('BatchGetItem', t, leadingKeys(t, ...r.Keys)));
    case 'BatchWriteItem':
      return Object.entries(input.RequestItems as Record<string, Input[]>).map(([t, rs]) =>
        one('BatchWriteItem', t, leadingKeys(t, ...rs.map((r) => r.PutRequest?.Item ?? r.DeleteRequest?.Key))),
      );
    // A transaction is authorized item by item, as the single-item action each one is.
    case 'TransactWriteItems':
      return (input.TransactItems as Input[]).map((t) => {
        if (t.Put) return one('PutItem', t.Put.TableName, leadingKeys(t.Put.TableName, t.Put.Item));
        if (t.Update) return one('UpdateItem', t.Update.TableName, leadingKeys(t.Update.TableName, t.Update.Key));
        if (t.Delete) return one('DeleteItem', t.Delete.TableName, leadingKeys(t.Delete.TableName, t.Delete.Key));
        return one('ConditionCheckItem', t.ConditionCheck.TableName, leadingKeys(t.ConditionCheck.TableName, t.ConditionCheck.Key));
      });
    case 'TransactGetItems':
      return (input.TransactItems as Input[]).map((t) => one('GetItem', t.Get.TableName, leadingKeys(t.Get.TableName, t.Get.Key)));
    default:
      return [one(command, input.TableName ?? '*')];
  }
}

/** A queue URL's ARN: the queue's name is the URL's last segment, in the local account and region. */
export const queueArnOfUrl = (url: string) => arn('sqs', new URL(url).pathname.split('/').filter(Boolean).pop()!);

const SQS_ACTIONS: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

function sqs(command: string, input: Input): IamRequest[] {
  const action = `sqs:${SQS_ACTIONS[command] ?? command}`;
  if (input.QueueUrl) return [{ action, resource: queueArnOfUrl(input.QueueUrl), context: {} }];
  if (input.QueueName) return [{ action, resource: arn('sqs', input.QueueName), context: {} }];
  return [{ action, resource: '*', context: {} }];
}

const object = (bucket: string, key: string) => `arn:aws:s3:::${bucket}/${key}`;

function s3(command: string, input: Input): IamRequest[] {
  const o = (action: string, bucket = input.Bucket, key = input.Key): IamRequest => ({ action: `s3:${action}`, resource: object(bucket, key), context: {} });
  const versioned = (plain: string) => (input.VersionId ? `${plain}Version` : plain);
  switch (command) {
    case 'GetObject':
    case 'HeadObject':
      return [o(versioned('GetObject'))];
    case 'PutObject':
    case 'CreateMultipartUpload':
    case 'UploadPart':
    case 'CompleteMultipartUpload':
      return [o('PutObject')];
    case 'AbortMultipartUpload':
      return [o('AbortMultipartUpload')];
    case 'ListParts':
      return [o('ListMultipartUploadParts')];
    case 'DeleteObject':
      return [o(versioned('DeleteObject'))];
    case 'DeleteObjects':
      return (input.Delete.Objects as { Key: string; VersionId?: string }[]).map((x) =>
        o(x.VersionId ? 'DeleteObjectVersion' : 'DeleteObject', input.Bucket, x.Key),
      );
    case 'CopyObject': {
      const source = decodeURIComponent(String(input.CopySource)).replace(/^\//, '');
      const slash = source.indexOf('/');
      return [o('GetObject', source.slice(0, slash), source.slice(slash + 1).split('?')[0]), o('PutObject')];
    }
    case 'ListObjects':
    case 'ListObjectsV2':
      return [{ action: 's3:ListBucket', resource: `arn:aws:s3:::${input.Bucket}`, context: input.Prefix !== undefined ? { 's3:prefix': input.Prefix } : {} }];
    case 'HeadBucket':
      return [{ action: 's3:ListBucket', resource: `arn:aws:s3:::${input.Bucket}`, context: {} }];
    default:
      return [{ action: `s3:${command}`, resource: input.Key ? object(input.Bucket, input.Key) : `arn:aws:s3:::${input.Bucket}`, context: {} }];
  }
}

function scheduler(command: string, input: Input): IamRequest[] {
  const schedule = arn('scheduler', `schedule/${input.GroupName ?? 'default'}/${input.Name}`);
  const out: IamRequest[] = [{ action: `scheduler:${command}`, resource: schedule, context: {} }];
  // A schedule runs as the role it names: creating or updating one passes that role to the Scheduler.
  if ((command === 'CreateSchedule' || command === 'UpdateSchedule') && input.Target?.RoleArn) {
    out.push({ action: 'iam:PassRole', resource: input.Target.RoleArn, context: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
  }
  return out;
}

function cognito(command: string, input: Input): IamRequest[] {
  // The user-facing operations (InitiateAuth, RespondToAuthChallenge, ...) are not authorized by IAM.
  if (!input.UserPoolId) return [];
  return [{ action: `cognito-idp:${command}`, resource: arn('cognito-idp', `userpool/${input.UserPoolId}`), context: {} }];
}

function ses(command: string, input: Input): IamRequest[] {
  if (command !== 'SendEmail') return [{ action: `ses:${command}`, resource: '*', context: {} }];
  const from = String(input.FromEmailAddress ?? '').replace(/^.*<([^>]+)>.*$/, '$1');
  const to = [...(input.Destination?.ToAddresses ?? []), ...(input.Destination?.CcAddresses ?? []), ...(input.Destination?.BccAddresses ?? [])] as string[];
  const context = { 'ses:FromAddress': from, 'ses:Recipients': to, 'ses:ApiVersion': '2' };
  // SES authorizes the sending identity: the address if it is verified as such, else its domain.
  const domain = from.split('@')[1] ?? from;
  const out: IamRequest[] = [{ action: 'ses:SendEmail', resource: arn('ses', `identity/${domain}`), context }];
  if (input.ConfigurationSetName) out.push({ action: 'ses:SendEmail', resource: arn('ses', `configuration-set/${input.ConfigurationSetName}`), context });
  // In the SES sandbox (LOCAL_SES_SANDBOX) each recipient is an identity SES authorizes the send against too.
  if (process.env.LOCAL_SES_SANDBOX === 'true') {
    for (const r of to) out.push({ action: 'ses:SendEmail', resource: arn('ses', `identity/${r.replace(/^.*<([^>]+)>.*$/, '$1')}`), context });
  }
  return out;
}

const SERVICES: Record<string, (command: string, input: Input) => IamRequest[]> = {
  DynamoDBClient: dynamodb,
  SQSClient: sqs,
  S3Client: s3,
  SchedulerClient: scheduler,
  CognitoIdentityProviderClient: cognito,
  SESv2Client: ses,
};

/**
 * The authorizations AWS makes for one SDK call (client and command names as the SDK's middleware context has
 * them, the command's wire input: for DynamoDB, after the document client's marshalling). A service the layer does
 * not know answers undefined, and the caller refuses the call: an unknown call is not silently allowed.
 */
export function iamRequestsFor(clientName: string, commandName: string, input: Input): IamRequest[] | undefined {
  const service = SERVICES[clientName];
  return service?.(commandName.replace(/Command$/, ''), input ?? {});
}
