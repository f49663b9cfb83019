import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

/** API Gateway HTTP API (payload format 2.0) proxy event and result. */
export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2 & { headers: Record<string, string> };
export type LambdaContext = Context;

export interface HandlerResult {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw body for non-JSON responses (CSV, PDF as base64 when isBase64). */
  raw?: { body: string; contentType: string; isBase64?: boolean };
}
