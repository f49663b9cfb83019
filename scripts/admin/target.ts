import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { defaultStateDir, readRuntime } from '../../infra/local/stack';
import { TABLES } from '../../shared/db/tables';

export class UsageError extends Error {}

/**
 * Where the admin CLI acts. By default: the local stack started from this
 * checkout with the same PORT and LOCAL_STATE_DIR (found through its runtime
 * file). With ADMIN_TARGET=aws: the deployed CloudFormation stack STACK_NAME
 * (default PartnerTravelService), with the usual AWS credentials and region.
 */
export async function connect(): Promise<string> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  if ((process.env.ADMIN_TARGET ?? 'local') === 'aws') {
    const stackName = process.env.STACK_NAME ?? 'PartnerTravelService';
    const cfn = new CloudFormationClient({});
    const r = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
    const outputs = Object.fromEntries((r.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
    if (!outputs.AccessTableName || !outputs.DataTableName) throw new Error(`stack ${stackName} has no table outputs; is it deployed?`);
    process.env[TABLES.access.envVar] = outputs.AccessTableName;
    process.env[TABLES.data.envVar] = outputs.DataTableName;
    if (outputs.WebhookQueueUrl) process.env.WEBHOOK_QUEUE_URL = outputs.WebhookQueueUrl;
    if (outputs.SettlementQueueUrl) process.env.SETTLEMENT_QUEUE_URL = outputs.SettlementQueueUrl;
    if (outputs.SettlementBucketName) process.env.SETTLEMENT_BUCKET = outputs.SettlementBucketName;
    return `stack ${stackName}`;
  }
  const port = Number(process.env.PORT ?? 3000);
  const stateDir = defaultStateDir();
  const runtime = readRuntime(stateDir, port);
  if (!runtime) {
    throw new Error(
      `no local stack is running on port ${port} with state in ${stateDir}: start it with 'npm start' (same PORT and LOCAL_STATE_DIR), or set ADMIN_TARGET=aws to act on a deployed stack`,
    );
  }
  Object.assign(process.env, runtime.env);
  return `local stack ${runtime.baseUrl}`;
}
