import { randomUUID } from 'node:crypto';
import { findRunningStack } from '../../infra/local/find-stack';
import { enforceForOperator } from '../../infra/local/iam/local';
import { runAs } from '../../infra/local/iam/principal';
import { withinInvocation } from '../../infra/local/lambda';
import { captureFunctionLogs } from '../../infra/local/logs';
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
    // Loaded for this target only: the local stack (every test's) needs no CloudFormation client.
    const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
    const cfn = new CloudFormationClient({});
    const r = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
    const outputs = Object.fromEntries((r.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
    if (!outputs.AccessTableName || !outputs.DataTableName) throw new Error(`stack ${stackName} has no table outputs; is it deployed?`);
    process.env[TABLES.access.envVar] = outputs.AccessTableName;
    process.env[TABLES.data.envVar] = outputs.DataTableName;
    if (outputs.UserPoolId) process.env.USER_POOL_ID = outputs.UserPoolId;
    if (outputs.UserPoolClientId) process.env.USER_POOL_CLIENT_ID = outputs.UserPoolClientId;
    if (outputs.WebhookQueueUrl) process.env.WEBHOOK_QUEUE_URL = outputs.WebhookQueueUrl;
    if (outputs.WebhookDlqUrl) process.env.WEBHOOK_QUEUE_URL_DLQ = outputs.WebhookDlqUrl;
    if (outputs.SettlementQueueUrl) process.env.SETTLEMENT_QUEUE_URL = outputs.SettlementQueueUrl;
    if (outputs.SettlementBucketName) process.env.SETTLEMENT_BUCKET = outputs.SettlementBucketName;
    if (outputs.MailQueueUrl) process.env.MAIL_QUEUE_URL = outputs.MailQueueUrl;
    if (outputs.OperatorsEmail) process.env.OPERATORS_EMAIL = outputs.OperatorsEmail;
    // The e-mails of a command (booking:cancel) go on the mail queue; the deployed consumer sends them.
    process.env.MAIL_DELIVERY = 'queue';
    return `stack ${stackName}`;
  }
  const runtime = findRunningStack('set ADMIN_TARGET=aws to act on a deployed stack');
  Object.assign(process.env, runtime.env);
  // The e-mails of a command go on the mail queue, for the stack's consumer to send, as in AWS.
  process.env.MAIL_DELIVERY = 'queue';
  // As an operator whose role has the operators' policy of the templates (what the CLI may do in AWS).
  enforceForOperator(runtime.stateDir);
  return `local stack ${runtime.baseUrl}`;
}

/**
 * Runs a command against the local stack as one invocation of a function
 * named `admin <command>`: what the service's code writes meanwhile (logs, EMF
 * metrics of operator actions) goes to the stack's function log file, as a
 * handler's would, and stdout stays the command's answer. Against AWS the
 * command just runs (its metrics are off: see scripts/quiet-sdk.ts).
 */
export async function runAsInvocation<T>(target: string, name: string, fn: () => Promise<T>): Promise<T> {
  const file = process.env.LOCAL_LOG_FILE;
  if (!target.startsWith('local') || !file) return fn();
  const restore = captureFunctionLogs(file, { echo: 'stderr', echoLevel: process.env.LOG_LEVEL ?? 'WARN', jsonOnly: true });
  try {
    return await withinInvocation(randomUUID(), () =>
      runAs('operator', async () => {
        const { logger } = await import('../../shared/kernel/logger');
        logger.appendKeys({ route: `admin ${name}` });
        return fn();
      }),
    );
  } finally {
    // What a handler queues behind its answer (the time-zone data report) runs now, into the function's log as
    // on Lambda, not onto stdout after the command's one JSON document.
    await new Promise((resolve) => setImmediate(resolve));
    await restore();
  }
}
