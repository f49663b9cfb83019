import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/**
 * Deployment environments: what differs between them is set here once. Chosen
 * with `-c deployment=NAME` (or DEPLOYMENT_ENV), default production.
 */
export interface Deployment {
  name: 'production' | 'staging' | 'dev';
  /** Powertools log level of every function. */
  logLevel: 'DEBUG' | 'INFO' | 'WARN';
  /** Retention of every function's log group and of the API access logs. */
  logRetention: RetentionDays;
}

export const DEPLOYMENTS: Record<Deployment['name'], Omit<Deployment, 'name'>> = {
  // Thirteen months: an incident or a bank's dispute can be traced back over a year, like the audit trail (400 days).
  production: { logLevel: 'INFO', logRetention: RetentionDays.THIRTEEN_MONTHS },
  staging: { logLevel: 'INFO', logRetention: RetentionDays.ONE_MONTH },
  dev: { logLevel: 'DEBUG', logRetention: RetentionDays.ONE_WEEK },
};

export function deploymentOf(scope: Construct): Deployment {
  const name = (scope.node.tryGetContext('deployment') ?? process.env.DEPLOYMENT_ENV ?? 'production') as Deployment['name'];
  const d = DEPLOYMENTS[name];
  if (!d) throw new Error(`unknown deployment '${name}': one of ${Object.keys(DEPLOYMENTS).join(', ')}`);
  return { name, ...d };
}
