import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Structured JSON logs. Handlers append the request id; nothing that could be
 * a secret (headers, bodies, keys) is ever passed to the logger.
 */
export const logger = new Logger({ serviceName: 'partner-travel-api' });
