import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from './logger';
import { annotate, tracer } from './tracing';
import { runtimeRulesCheck } from './tz-check';

/**
 * What every non-HTTP handler (queue consumers, jobs) wraps itself in, as
 * routes do through `route()`: the X-Ray trace (never the response), the
 * Lambda context and the invocation's own log keys: `request_id` (Lambda's
 * request id) and `route` (what runs: `queue webhooks`, `job webhookSweeper`),
 * also put on the trace; and after the answer, the check of the runtime's
 * time-zone data (tz-check.ts).
 */
export function instrumented<E, R>(route: string, fn: (event: E, context: Context) => Promise<R>) {
  return middy<E, R>()
    .use(runtimeRulesCheck())
    .use(captureLambdaHandler(tracer, { captureResponse: false }))
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event, context) => {
      logger.appendKeys({ request_id: context.awsRequestId, route });
      annotate({ request_id: context.awsRequestId, route });
      return fn(event, context);
    });
}
