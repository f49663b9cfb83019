import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { traced } from './tracing';

/**
 * AWS clients, created once per container. Endpoints come from the standard
 * AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE> variables, so the same code
 * talks to AWS, LocalStack or the embedded local stack. Captured by the
 * tracer: each call is a subsegment of the function's trace in AWS.
 */
export const dynamo = traced(new DynamoDBClient({}));
export const ddb = DynamoDBDocumentClient.from(dynamo, {
  marshallOptions: { removeUndefinedValues: true },
});
