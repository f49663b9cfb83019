import { Logger } from '@aws-lambda-powertools/logger';

export const SERVICE_NAME = 'partner-travel-api';

/**
 * Structured JSON logs (Powertools Logger). Every line carries the service,
 * the deployment (`stage`: production, staging, dev or local) and, through the
 * invocation's keys, the request id, the route, the partner and its
 * environment (live/test). The keys appended during an invocation belong to
 * that invocation only: in Lambda one invocation runs at a time, and the local
 * runtime runs each invocation in its own context (Lambda's invoke store), so
 * concurrent requests never share a request id.
 *
 * Nothing that could be a secret (headers, bodies, keys, signatures, payment
 * confirmations, customer references, contact data) is ever passed to the logger.
 */
export const logger = new Logger({ serviceName: SERVICE_NAME, persistentKeys: { stage: process.env.DEPLOYMENT_ENV ?? 'local' } });
